/**
 * Bad input, one sweep (issue 12, part 4): every row of docs/errors.md is a malformed input run through
 * the real CLI. Each row must exit with its code (1 bad data, 2 bad usage), print exactly one `rge:`
 * error naming the file (and line or field where there is one) with no stack trace, and leave the
 * folder as it was: no file created, none changed (so nothing half-written). The message printed must
 * match the row's message in docs/errors.md, and every row of the doc must have a case here, so the two
 * cannot drift. `RGE_ERRORS_DOC_OUT=FILE` writes the table as the CLI printed it (to refresh the doc).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setWriteFault, sha256 } from '../../src/util/fs.ts';
import { spawnRge } from '../helpers/child.ts';
import { runRge } from '../helpers/cli.ts';
import { startLoopbackServer } from '../helpers/http-server.ts';
import { makeTextPdf } from '../helpers/make-pdf.ts';
import { handSample } from '../validation/hand-sample.ts';

const DOC = fileURLToPath(new URL('../../docs/errors.md', import.meta.url));

/** A run config over the small corpus of `world` (a prebuilt bm25 index, offline subject, heuristic judges). */
const CONFIG = `version: 1
name: errs
seed: errs-v1
corpus:
  pdfs: pdfs
  index: index
  embedder: bm25
  chunk_tokens: 800
  overlap_tokens: 100
questions:
  file: questions.jsonl
  version: 1
subjects:
  - id: extractive
    provider: offline
    model: extractive
    family: rge-offline-extractive
    temperature: 0
    max_tokens: 256
judges:
  - id: numeric
    provider: heuristic
    model: numeric
    family: rge-heuristic-numeric
    temperature: 0
  - id: lexical
    provider: heuristic
    model: lexical
    family: rge-heuristic-lexical
    temperature: 0
runs: 1
budget:
  cap_usd: 0
  warn_usd: 0
thresholds:
  correctness: null
  grounding: null
  calibration: null
  gfs: null
judge_prompt:
  version: v2
  sha256: null
  text: null
latency_budget_ms: 2000
`;

const PDF_TEXT = 'FINANCIAL HIGHLIGHTS\nRevenue from operations rose to Rs 4,512 crore in FY24.';
const WRONG_SHA = 'ab'.repeat(32);

/** The shared good world every row starts from (copied into the row's own folder). */
interface World {
  dir: string;
  chunkId: string;
  goodPdf: Buffer;
  question: (over?: Record<string, unknown>) => string;
}

let world: World;

interface Row {
  id: string;
  /** what is malformed, in the doc's words */
  input: string;
  args: string[];
  exit: 1 | 2;
  /** what the error must name: the file, with its line or field when there is one */
  names: string;
  setup?: (dir: string) => Promise<void>;
  /** new paths the command may create (caches), relative to the row's folder */
  mayCreate?: RegExp;
  /** environment variables for the run (an empty value unsets a key) */
  env?: Record<string, string>;
  /** a write failure to inject into writeFileAtomic for paths ending so */
  fault?: { suffix: string; code: string };
  /** run `node bin/rge.mjs` as a child process (where the process, its exit and its stderr matter) */
  spawn?: boolean;
  /** a reason to skip on this machine (checked in the case), or undefined to run */
  skip?: () => string | undefined;
  /** extra set-up that needs undoing (a mount); returns the undo */
  around?: (dir: string) => Promise<() => Promise<void>>;
}

const at = (dir: string, path: string) => join(dir, path);
const write = (dir: string, path: string, text: string | Buffer) =>
  mkdir(join(dir, path, '..'), { recursive: true }).then(() => writeFile(at(dir, path), text));
/** JSON that is not a run's summary.json: `rge plan` must name a bad flag before it reads the file. */
const notASummary = (dir: string) => write(dir, 'summary.json', '{ "version": 1 }\n');
/** A run's summary.json as the gate reads it: run `runId` of config `config` with `runs` runs per question. */
const gateSummary = (runId: string, config: string, runs: number) =>
  `${JSON.stringify({
    run: { runId, seed: 's', questionsHash: 'q'.repeat(64), indexChecksum: 'i'.repeat(64) },
    partial: null,
    describe: {
      config,
      configFile: `configs/${config}.yaml`,
      subjectPrompt: { version: 'v1', sha256: 'a'.repeat(64) },
      judgePrompt: { version: 'v2', sha256: 'b'.repeat(64) },
      judges: [{ id: 'numeric', model: 'numeric' }],
      runs,
    },
    diagnostics: {
      cells: [{ subject: 'x', question_id: 'q1', run_index: 0, category: 'adversarial', gfs: 0.5 }],
    },
  })}\n`;
/** A baseline of the fixture config and a current run of the ci config. */
const twoConfigs = async (dir: string) => {
  await write(dir, 'baseline.json', gateSummary('fixture-1', 'fixture', 3));
  await write(dir, 'current.json', gateSummary('ci-1', 'ci', 2));
};
/** Two runs of the ci config, as the gate compares them (their cells without pass flags). */
const twoRunsOfOneConfig = async (dir: string) => {
  await write(dir, 'baseline.json', gateSummary('ci-1', 'ci', 2));
  await write(dir, 'current.json', gateSummary('ci-2', 'ci', 2));
};
/** run.yaml's corpus as a generated one (the fixture world), built with bm25 in gen-index. */
const generatedCorpus = async (dir: string) => {
  await write(
    dir,
    'facts.json',
    await readFile(fileURLToPath(new URL('../../fixtures/facts.json', import.meta.url))),
  );
  await editConfig(dir, (t) =>
    t.replace(
      '  pdfs: pdfs\n  index: index\n',
      '  generated_from: facts.json\n  pdfs: gen-pdfs\n  index: gen-index\n',
    ),
  );
  const built = await runRge(dir, 'corpus', 'ingest', '--config', 'run.yaml', '--cache-dir', 'cache', '-q');
  if (built.code !== 0) throw new Error(`the generated corpus was not built: ${built.err}`);
};
const editConfig = async (dir: string, edit: (text: string) => string) => {
  const text = await readFile(at(dir, 'run.yaml'), 'utf8');
  const edited = edit(text);
  if (edited === text) throw new Error('the config edit changed nothing');
  await writeFile(at(dir, 'run.yaml'), edited);
};
/** The config's subject as a system: `fields` (its provider and way in) in place of the offline model's. */
const asSystem = (fields: string) => (dir: string) =>
  editConfig(dir, (t) =>
    t.replace(
      'provider: offline\n    model: extractive\n    family: rge-offline-extractive\n    temperature: 0\n    max_tokens: 256',
      `${fields}\n    model: extractive\n    family: rge-offline-extractive`,
    ),
  );
/** A port on the loopback interface that nothing listens on (a server's, closed). */
async function closedPort(): Promise<number> {
  const server = await startLoopbackServer();
  const port = Number(new URL(server.url('/')).port);
  await server.close();
  return port;
}
/** A sources.yaml of one document with no url: `--from` is its only source (no network). */
const sources = (sha: string) => `version: 1
documents:
  - company: acme
    company_name: Acme Ltd
    fy: FY24
    url: null
    sha256: ${sha}
    accessed_on: null
    file: acme-FY24.pdf
`;

/** A golden set over the world's PDF (`rge questions import --format golden`): its header and one good row. */
const GOLDEN_IMPORT = ['questions', 'import', 'golden.csv', '--format', 'golden'];
const GOLDEN_HEADER = 'id,question,expected_behavior,gold_answer,gold_quotes,source';
const GOLDEN_ROW =
  'q-1,What was Acme\'s revenue in FY24?,answer,"Rs 4,512 crore","Revenue from operations rose to Rs 4,512 crore in FY24.",Acme_FY2023-24.pdf';
/** a second row, good as it is (another id) */
const GOLDEN_ROW_2 = GOLDEN_ROW.replace(/^q-1,/, 'q-2,');
/** golden.csv: the header, the good row, and `row` under them (a second row that is bad). */
const golden = (dir: string, row?: string) =>
  write(dir, 'golden.csv', `${GOLDEN_HEADER}\n${GOLDEN_ROW}\n${row === undefined ? '' : `${row}\n`}`);

const isRoot = () => process.getuid?.() === 0;

const ROWS: Row[] = [
  // questions JSONL
  {
    id: 'q-json',
    input: 'questions: a line that is not JSON',
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:2:',
    setup: (d) => write(d, 'questions.jsonl', `${world.question()}\n{"id": "gd-002",\n`),
  },
  {
    id: 'q-field-missing',
    input: 'questions: a required field missing',
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:1: text:',
    setup: (d) => write(d, 'questions.jsonl', `${world.question({ text: undefined })}\n`),
  },
  {
    id: 'q-category',
    input: 'questions: an unknown category',
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:1: category:',
    setup: (d) => write(d, 'questions.jsonl', `${world.question({ category: 'trivia' })}\n`),
  },
  {
    id: 'q-duplicate',
    input: 'questions: two questions with one id',
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:2: id:',
    setup: (d) => write(d, 'questions.jsonl', `${world.question()}\n${world.question()}\n`),
  },
  {
    id: 'q-gold-chunk',
    input: 'questions: a gold chunk id the index does not have',
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:1: gold_chunk_ids.0:',
    setup: (d) =>
      write(d, 'questions.jsonl', `${world.question({ gold_chunk_ids: ['acme-FY24-deadbeef'] })}\n`),
  },
  {
    id: 'q-version',
    input: "questions: a version other than the config's questions.version",
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:1: version:',
    setup: (d) => write(d, 'questions.jsonl', `${world.question({ version: 2 })}\n`),
  },
  {
    id: 'q-several',
    input: 'questions: several bad lines (all listed on stdout, the first on stderr)',
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:1: category:',
    setup: (d) =>
      write(
        d,
        'questions.jsonl',
        `${world.question({ category: 'trivia' })}\nnot json\n${world.question()}\n`,
      ),
  },
  {
    id: 'q-empty',
    input: 'questions: an empty file (never "ok")',
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'questions.jsonl:',
    setup: (d) => write(d, 'questions.jsonl', ''),
  },
  {
    id: 'q-blank',
    input: 'questions: a file of blank lines',
    args: ['questions', 'validate', '--questions', 'questions.jsonl', '--index', 'index'],
    exit: 1,
    names: 'questions.jsonl:',
    setup: (d) => write(d, 'questions.jsonl', '\n  \n\n'),
  },
  {
    id: 'q-file-missing',
    input: '`--questions` names a file that does not exist',
    args: ['questions', 'validate', '--questions', 'nope.jsonl', '--index', 'index'],
    exit: 2,
    names: '--questions nope.jsonl:',
  },
  {
    id: 'q-no-flags',
    input: '`questions validate` with no flags where there is no configs/fixture.yaml',
    args: ['questions', 'validate'],
    exit: 2,
    names: 'configs/fixture.yaml',
  },
  {
    id: 'q-default-index',
    input: '`--questions` without `--index` where the default data/index is not built',
    args: ['questions', 'validate', '--questions', 'questions.jsonl'],
    exit: 2,
    names: 'data/index',
  },
  {
    id: 'q-not-index',
    input: '`--index` names a folder that is not a built index',
    args: ['questions', 'validate', '--questions', 'questions.jsonl', '--index', 'pdfs'],
    exit: 1,
    names: 'pdfs',
  },
  {
    id: 'q-chunks-corrupt',
    input: 'index: a truncated chunks.json',
    args: ['questions', 'validate', '--questions', 'questions.jsonl', '--index', 'index'],
    exit: 1,
    names: 'index/chunks.json:',
    setup: async (d) => {
      const text = await readFile(at(d, 'index/chunks.json'), 'utf8');
      await writeFile(at(d, 'index/chunks.json'), text.slice(0, 40));
    },
  },
  // a golden set (rge questions import --format golden)
  {
    id: 'golden-no-header',
    input: 'golden CSV: no header row (the first row is a question)',
    args: GOLDEN_IMPORT,
    exit: 1,
    names: 'golden.csv:1:',
    setup: (d) => write(d, 'golden.csv', `${GOLDEN_ROW}\n`),
  },
  {
    id: 'golden-unknown-column',
    input: 'golden CSV: a column rge does not read (a typo)',
    args: GOLDEN_IMPORT,
    exit: 1,
    names: 'golden.csv:1: answr:',
    setup: (d) => write(d, 'golden.csv', `${GOLDEN_HEADER.replace('gold_answer', 'answr')}\n${GOLDEN_ROW}\n`),
  },
  {
    id: 'golden-missing-field',
    input: 'golden CSV: a row without its question',
    args: GOLDEN_IMPORT,
    exit: 1,
    names: 'golden.csv:3: question:',
    setup: (d) => golden(d, GOLDEN_ROW_2.replace("What was Acme's revenue in FY24?", '')),
  },
  {
    id: 'golden-behaviour',
    input: 'golden CSV: an expected behaviour rge does not know',
    args: GOLDEN_IMPORT,
    exit: 1,
    names: 'golden.csv:3: expected_behavior:',
    setup: (d) => golden(d, GOLDEN_ROW_2.replace(',answer,', ',maybe,')),
  },
  {
    id: 'golden-quote',
    input: 'golden CSV: a gold quote its source document does not print (`--documents`)',
    args: [...GOLDEN_IMPORT, '--documents', 'pdfs'],
    exit: 1,
    names: 'golden.csv:3: gold_quotes.0:',
    setup: (d) => golden(d, GOLDEN_ROW_2.replace('rose to', 'fell to')),
  },
  {
    id: 'golden-unterminated',
    input: 'golden CSV: a quoted field never closed',
    args: GOLDEN_IMPORT,
    exit: 1,
    names: 'golden.csv:3:',
    setup: (d) => golden(d, `q-2,"What was Acme's revenue in FY23?,answer,x,,`),
  },
  {
    id: 'golden-duplicate',
    input: 'golden CSV: two rows with one id',
    args: GOLDEN_IMPORT,
    exit: 1,
    names: 'golden.csv:3: id:',
    setup: (d) => golden(d, GOLDEN_ROW),
  },
  {
    id: 'golden-empty',
    input: 'golden CSV: an empty file',
    args: GOLDEN_IMPORT,
    exit: 1,
    names: 'golden.csv:',
    setup: (d) => write(d, 'golden.csv', ''),
  },
  {
    id: 'golden-extension',
    input: 'golden: a file whose name says neither CSV nor JSONL',
    args: ['questions', 'import', 'golden.txt', '--format', 'golden'],
    exit: 2,
    names: 'golden.txt:',
    setup: (d) => write(d, 'golden.txt', `${GOLDEN_HEADER}\n${GOLDEN_ROW}\n`),
  },
  {
    id: 'golden-documents-missing',
    input: '`--documents` names a folder that does not exist',
    args: [...GOLDEN_IMPORT, '--documents', 'nope'],
    exit: 2,
    names: '--documents nope:',
    setup: (d) => golden(d),
  },
  {
    id: 'run-q-empty',
    input: 'eval run: the config names an empty questions file',
    args: ['eval', 'run', '--config', 'run.yaml', '--dry-run'],
    exit: 1,
    names: 'questions.jsonl:',
    setup: (d) => write(d, 'questions.jsonl', ''),
  },
  {
    id: 'run-q-duplicate',
    input: 'eval run: two questions with one id',
    args: ['eval', 'run', '--config', 'run.yaml', '--dry-run'],
    exit: 1,
    names: 'questions.jsonl:2: id:',
    setup: (d) => write(d, 'questions.jsonl', `${world.question()}\n${world.question()}\n`),
  },
  {
    id: 'run-q-json',
    input: 'eval run: a questions line that is not JSON',
    args: ['eval', 'run', '--config', 'run.yaml', '--dry-run'],
    exit: 1,
    names: 'questions.jsonl:2:',
    setup: (d) => write(d, 'questions.jsonl', `${world.question()}\n{oops\n`),
  },
  // run config YAML
  {
    id: 'c-yaml-syntax',
    input: 'config: a YAML syntax error (only the syntax error, at its line)',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:3: yaml:',
    setup: (d) => editConfig(d, (t) => t.replace('seed: errs-v1', 'seed: errs-v1: x')),
  },
  {
    id: 'c-yaml-duplicate-key',
    input: 'config: a key given twice',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:',
    setup: (d) => editConfig(d, (t) => t.replace('runs: 1\n', 'runs: 1\nruns: 2\n')),
  },
  {
    id: 'c-type',
    input: 'config: a field of the wrong type',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:31: runs:',
    setup: (d) => editConfig(d, (t) => t.replace('runs: 1', 'runs: three')),
  },
  {
    id: 'c-unknown-field',
    input: 'config: an unknown field (a typo)',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:',
    setup: (d) => editConfig(d, (t) => t.replace('runs: 1', 'runs: 1\nretreival:\n  k: 5')),
  },
  {
    id: 'c-missing-field',
    input: 'config: a required field missing',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:1: seed:',
    setup: (d) => editConfig(d, (t) => t.replace('seed: errs-v1\n', '')),
  },
  {
    id: 'c-offline-model',
    input: 'config: an offline model that does not exist (`gpt-99`)',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:16: subjects[0].model:',
    setup: (d) => editConfig(d, (t) => t.replace('model: extractive', 'model: gpt-99')),
  },
  {
    id: 'run-offline-model',
    input: 'eval run: the same offline model `gpt-99` (rejected the same way)',
    args: ['eval', 'run', '--config', 'run.yaml', '--dry-run'],
    exit: 1,
    names: 'run.yaml:16: subjects[0].model:',
    setup: (d) => editConfig(d, (t) => t.replace('model: extractive', 'model: gpt-99')),
  },
  {
    id: 'c-heuristic-model',
    input: 'config: a heuristic judge that does not exist',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:23: judges[0].model:',
    setup: (d) => editConfig(d, (t) => t.replace('model: numeric', 'model: semantic')),
  },
  {
    id: 'c-live-model',
    input: 'config: a live model neither in the catalogue nor priced in the config',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:16: subjects[0].model:',
    setup: (d) =>
      editConfig(d, (t) =>
        t.replace('provider: offline\n    model: extractive', 'provider: openai\n    model: gpt-99'),
      ),
  },
  {
    id: 'c-provider',
    input: 'config: an unknown provider',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:15: subjects[0].provider:',
    setup: (d) => editConfig(d, (t) => t.replace('provider: offline', 'provider: acme-ai')),
  },
  {
    id: 'c-overlap',
    input: 'config: overlap_tokens not below chunk_tokens',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:9: corpus.overlap_tokens:',
    setup: (d) => editConfig(d, (t) => t.replace('overlap_tokens: 100', 'overlap_tokens: 800')),
  },
  {
    id: 'c-corpus-missing',
    input: 'config: no corpus section, with a model subject (only a config of systems may leave it out)',
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:1: corpus:',
    setup: (d) => editConfig(d, (t) => t.replace(/^corpus:\n(?: {2}.*\n)+/m, '')),
  },
  {
    id: 'c-path-old-way',
    input:
      "config: a path written relative to the working folder, not to the config's folder (sub/run.yaml's questions.jsonl)",
    args: ['config', 'validate', '--config', 'sub/run.yaml'],
    exit: 1,
    names: 'sub/run.yaml:11: questions.file:',
    setup: async (d) => {
      const text = await readFile(at(d, 'run.yaml'), 'utf8');
      await write(
        d,
        'sub/run.yaml',
        text.replace('  pdfs: pdfs\n  index: index\n', '  pdfs: ../pdfs\n  index: ../index\n'),
      );
    },
  },
  {
    id: 'c-missing',
    input: '`config validate --config` names a file that does not exist',
    args: ['config', 'validate', '--config', 'nope.yaml'],
    exit: 2,
    names: 'nope.yaml:',
  },
  {
    id: 'run-config-missing',
    input: '`eval run --config` names a file that does not exist (child process)',
    args: ['eval', 'run', '--config', 'nope.yaml'],
    exit: 2,
    names: 'nope.yaml:',
    spawn: true,
  },
  {
    id: 'watch-config-missing',
    input: '`eval watch --config` names a file that does not exist (it ends before watching)',
    args: ['eval', 'watch', '--config', 'nope.yaml'],
    exit: 2,
    names: 'nope.yaml:',
  },
  {
    id: 'watch-confirm-above',
    input: '`eval watch --confirm-above` not an amount of dollars',
    args: ['eval', 'watch', '--config', 'run.yaml', '--confirm-above', 'ten'],
    exit: 2,
    names: '--confirm-above',
  },
  {
    id: 'watch-debounce',
    input: '`eval watch --debounce` not a whole number of milliseconds',
    args: ['eval', 'watch', '--config', 'run.yaml', '--debounce', 'soon'],
    exit: 2,
    names: '--debounce',
  },
  {
    id: 'watch-baseline-missing',
    input: '`eval watch --baseline` names a file that does not exist',
    args: ['eval', 'watch', '--config', 'run.yaml', '--baseline', 'nope.json'],
    exit: 2,
    names: '--baseline nope.json',
  },
  {
    id: 'run-api-key',
    input: 'eval run: a live subject whose API key is not set',
    args: ['eval', 'run', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml: subject extractive',
    env: { ANTHROPIC_API_KEY: '' },
    setup: (d) =>
      editConfig(d, (t) =>
        t.replace(
          'provider: offline\n    model: extractive\n    family: rge-offline-extractive\n    temperature: 0',
          'provider: anthropic\n    model: claude-haiku-4-5\n    family: anthropic',
        ),
      ),
  },
  {
    id: 'run-system-module',
    input: 'eval run: a module system whose file is not there',
    args: ['eval', 'run', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml: subject extractive: no module at app.ts',
    setup: asSystem('provider: module\n    module: app.ts'),
  },
  {
    id: 'run-system-url',
    input: 'eval run: an http system whose URL nothing answers (a closed loopback port)',
    args: ['eval', 'run', '--config', 'run.yaml'],
    exit: 1,
    names: "run.yaml: subject extractive: the http system's URL http://127.0.0.1:",
    setup: async (d) => asSystem(`provider: http\n    url: http://127.0.0.1:${await closedPort()}/answer`)(d),
  },
  {
    id: 'run-system-program',
    input: 'eval run: a command system whose program is not there',
    args: ['eval', 'run', '--config', 'run.yaml'],
    exit: 1,
    names: "run.yaml: subject extractive: the command system's program rge-no-such-system",
    setup: asSystem('provider: command\n    command: [rge-no-such-system, --serve]'),
  },
  {
    id: 'c-forbidden-parameter',
    input: "config: a parameter the model's API refuses (temperature on Claude, API version 2026-10-21)",
    args: ['config', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'run.yaml:18: subjects[0].temperature:',
    setup: (d) =>
      editConfig(d, (t) =>
        t.replace(
          'provider: offline\n    model: extractive\n    family: rge-offline-extractive',
          'provider: anthropic\n    model: claude-haiku-4-5\n    family: anthropic',
        ),
      ),
  },
  // flags
  {
    id: 'flag-subjects',
    input: '`--subjects` names a subject the config does not have',
    args: ['eval', 'run', '--config', 'run.yaml', '--subjects', 'nosuch', '--dry-run'],
    exit: 2,
    names: 'run.yaml',
  },
  {
    id: 'flag-runs',
    input: '`--runs 0`',
    args: ['eval', 'run', '--config', 'run.yaml', '--runs', '0'],
    exit: 2,
    names: '--runs',
  },
  {
    id: 'flag-mode',
    input: '`--mode` not sync or batch',
    args: ['eval', 'run', '--config', 'run.yaml', '--mode', 'fast'],
    exit: 2,
    names: '--mode',
  },
  {
    id: 'flag-pass-rate',
    input: '`--min-pass-rate` outside [0, 1]',
    args: ['eval', 'run', '--config', 'run.yaml', '--min-pass-rate', '1.5'],
    exit: 2,
    names: '--min-pass-rate',
  },
  {
    id: 'env-heap-growth',
    input: '`RGE_HEAP_GROWTH_PERCENT` not 0 or 10-300',
    args: ['eval', 'run', '--config', 'run.yaml'],
    exit: 2,
    names: 'RGE_HEAP_GROWTH_PERCENT',
    env: { RGE_HEAP_GROWTH_PERCENT: '5' },
  },
  {
    id: 'flag-set',
    input: '`--set` without `=`',
    args: ['eval', 'run', '--config', 'run.yaml', '--set', 'runs'],
    exit: 2,
    names: '--set',
  },
  {
    id: 'flag-set-value',
    input: '`--set` of a value the schema refuses',
    args: ['eval', 'run', '--config', 'run.yaml', '--set', 'budget.cap_usd=-1'],
    exit: 1,
    names: '--set budget.cap_usd=-1',
  },
  {
    id: 'flag-set-field',
    input: '`--set` of a field the config does not have',
    args: ['eval', 'run', '--config', 'run.yaml', '--set', 'budget.cap=1'],
    exit: 1,
    names: '--set budget.cap=1',
  },
  {
    id: 'flag-unknown',
    input: 'an option rge does not have',
    args: ['eval', 'run', '--bogus'],
    exit: 2,
    names: '--bogus',
  },
  {
    id: 'flag-k',
    input: '`retrieve --k` not a positive integer',
    args: ['retrieve', 'revenue', '--index', 'index', '--k', 'abc'],
    exit: 2,
    names: '--k',
  },
  {
    id: 'flag-embedder',
    input: '`corpus ingest --embedder` unknown',
    args: ['corpus', 'ingest', '--pdfs', 'pdfs', '--index', 'index2', '--embedder', 'nope'],
    exit: 2,
    names: 'nope',
  },
  {
    id: 'flag-threads',
    input: '`corpus ingest --threads` not a positive integer',
    args: ['corpus', 'ingest', '--pdfs', 'pdfs', '--index', 'index2', '--threads', '0'],
    exit: 2,
    names: '--threads',
  },
  // the index
  {
    id: 'index-missing',
    input: 'eval run: the config names an index that was never built',
    args: ['eval', 'run', '--config', 'run.yaml'],
    exit: 1,
    names: 'index',
    setup: (d) => rm(at(d, 'index'), { recursive: true }),
  },
  {
    id: 'index-mismatch',
    input: "eval run: the config's chunk_tokens differ from its index's",
    args: ['eval', 'run', '--config', 'run.yaml', '--dry-run'],
    exit: 1,
    names: 'chunk_tokens: index 800, config 600',
    setup: (d) => editConfig(d, (t) => t.replace('chunk_tokens: 800', 'chunk_tokens: 600')),
  },
  {
    id: 'index-stale',
    input: 'eval run: a PDF changed after its index was built',
    args: ['eval', 'run', '--config', 'run.yaml', '--dry-run'],
    exit: 1,
    names: 'Acme_FY2023-24.pdf changed',
    setup: async (d) => write(d, 'pdfs/Acme_FY2023-24.pdf', await makeTextPdf([`${PDF_TEXT} Restated.`])),
  },
  {
    id: 'index-generated-other-settings',
    input: "eval run: a generated corpus's index was built with another embedder (it is left as it was)",
    args: ['eval', 'run', '--config', 'run.yaml', '--set', 'corpus.embedder=use-lite', '--dry-run'],
    exit: 1,
    names: 'gen-index',
    setup: generatedCorpus,
  },
  {
    id: 'index-mismatch-validate',
    input: "questions validate: the config's chunk_tokens differ from its index's",
    args: ['questions', 'validate', '--config', 'run.yaml'],
    exit: 1,
    names: 'chunk_tokens: index 800, config 600',
    setup: (d) => editConfig(d, (t) => t.replace('chunk_tokens: 800', 'chunk_tokens: 600')),
  },
  // PDFs at ingest
  {
    id: 'pdf-corrupt',
    input: 'ingest: a corrupt PDF (the existing index is left as it was)',
    args: [
      'corpus',
      'ingest',
      '--pdfs',
      'bad',
      '--index',
      'index',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
    ],
    exit: 1,
    names: 'bad/Corrupt_FY2023-24.pdf:',
    setup: (d) => write(d, 'bad/Corrupt_FY2023-24.pdf', Buffer.from('%PDF-1.4\nnot really a PDF\n')),
    mayCreate: /^cache\//,
  },
  {
    id: 'pdf-encrypted',
    input: 'ingest: an encrypted PDF',
    args: [
      'corpus',
      'ingest',
      '--pdfs',
      'bad',
      '--index',
      'index2',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
    ],
    exit: 1,
    names: 'bad/Locked_FY2023-24.pdf:',
    setup: async (d) =>
      write(d, 'bad/Locked_FY2023-24.pdf', await makeTextPdf(['secret'], { userPassword: 'pw' })),
    mayCreate: /^cache\//,
  },
  {
    id: 'pdf-no-text',
    input: 'ingest: a PDF with no text (a scan)',
    args: [
      'corpus',
      'ingest',
      '--pdfs',
      'bad',
      '--index',
      'index2',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
    ],
    exit: 1,
    names: 'bad/Scan_FY2023-24.pdf:',
    setup: async (d) => write(d, 'bad/Scan_FY2023-24.pdf', await makeTextPdf([''])),
    mayCreate: /^cache\//,
  },
  {
    id: 'pdf-empty-file',
    input: 'ingest: an empty (0-byte) PDF',
    args: [
      'corpus',
      'ingest',
      '--pdfs',
      'bad',
      '--index',
      'index2',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
    ],
    exit: 1,
    names: 'bad/Zero_FY2023-24.pdf:',
    setup: (d) => write(d, 'bad/Zero_FY2023-24.pdf', Buffer.alloc(0)),
    mayCreate: /^cache\//,
  },
  {
    id: 'pdf-one-of-two',
    input: 'ingest: one corrupt PDF beside a good one (the good one is indexed; exit 1)',
    args: [
      'corpus',
      'ingest',
      '--pdfs',
      'bad',
      '--index',
      'index2',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
    ],
    exit: 1,
    names: 'bad/Corrupt_FY2023-24.pdf:',
    setup: async (d) => {
      await write(d, 'bad/Corrupt_FY2023-24.pdf', Buffer.from('%PDF-1.4\nnot really a PDF\n'));
      await write(d, 'bad/Acme_FY2023-24.pdf', world.goodPdf);
    },
    // the documented outcome: the good document's index is written whole
    mayCreate: /^(cache|index2)\//,
  },
  {
    id: 'pdf-folder-missing',
    input: '`--pdfs` names a folder that does not exist',
    args: ['corpus', 'ingest', '--pdfs', 'nope', '--index', 'index2', '--embedder', 'bm25', '-q'],
    exit: 2,
    names: 'nope:',
  },
  {
    id: 'pdf-folder-empty',
    input: '`--pdfs` names a folder with no PDF',
    args: ['corpus', 'ingest', '--pdfs', 'empty', '--index', 'index2', '--embedder', 'bm25', '-q'],
    exit: 1,
    names: 'empty',
    setup: (d) => mkdir(at(d, 'empty')),
  },
  // sources.yaml
  {
    id: 'src-sha-format',
    input: 'sources.yaml: a sha256 that is not 64 hex digits',
    args: ['corpus', 'fetch', '--sources', 'sources.yaml', '--from', 'mirror', '--dest', 'dl', '-q'],
    exit: 1,
    names: 'sources.yaml:7: documents[0].sha256:',
    setup: async (d) => {
      await write(d, 'sources.yaml', sources('not-a-hash'));
      await mkdir(at(d, 'mirror'));
    },
  },
  {
    id: 'src-sha-mismatch',
    input: 'sources.yaml: a pinned sha256 the bytes do not have (nothing kept)',
    args: ['corpus', 'fetch', '--sources', 'sources.yaml', '--from', 'mirror', '--dest', 'dl', '-q'],
    exit: 1,
    names: 'sources.yaml: acme-FY24.pdf:',
    setup: async (d) => {
      await write(d, 'sources.yaml', sources(WRONG_SHA));
      await write(d, 'mirror/acme-FY24.pdf', world.goodPdf);
      await mkdir(at(d, 'dl'));
    },
  },
  {
    id: 'src-yaml-syntax',
    input: 'sources.yaml: a YAML syntax error',
    args: ['corpus', 'fetch', '--sources', 'sources.yaml', '--from', 'mirror', '--dest', 'dl', '-q'],
    exit: 1,
    names: 'sources.yaml:4: yaml:',
    setup: async (d) => {
      await write(
        d,
        'sources.yaml',
        sources(WRONG_SHA).replace('company_name: Acme Ltd', 'company_name: Acme: Ltd'),
      );
      await mkdir(at(d, 'mirror'));
    },
  },
  {
    id: 'src-missing',
    input: '`--sources` names a file that does not exist',
    args: ['corpus', 'fetch', '--sources', 'nope.yaml', '--dest', 'dl', '-q'],
    exit: 2,
    names: 'nope.yaml',
  },
  // plan
  {
    id: 'plan-from-missing',
    input: '`plan --from` names a summary that does not exist',
    args: ['plan', '--from', 'nope.json', '--effect', '0.03'],
    exit: 2,
    names: '--from nope.json:',
  },
  {
    id: 'plan-from-not-json',
    input: '`plan --from` names a file that is not JSON',
    args: ['plan', '--from', 'summary.json', '--effect', '0.03'],
    exit: 2,
    names: 'summary.json:',
    setup: (d) => write(d, 'summary.json', '{ "run": \n'),
  },
  {
    id: 'plan-from-not-summary',
    input: "`plan --from` names JSON that is not a run's summary.json",
    args: ['plan', '--from', 'summary.json', '--effect', '0.03'],
    exit: 2,
    names: 'summary.json:',
    setup: notASummary,
  },
  {
    id: 'plan-effect',
    input: '`plan --effect` not a number',
    args: ['plan', '--from', 'summary.json', '--effect', 'abc'],
    exit: 2,
    names: '--effect',
    setup: notASummary,
  },
  {
    id: 'plan-effect-range',
    input: '`plan --effect` outside (0, 1)',
    args: ['plan', '--from', 'summary.json', '--effect', '3'],
    exit: 2,
    names: '--effect',
    setup: notASummary,
  },
  {
    id: 'plan-runs',
    input: '`plan --runs` not a range',
    args: ['plan', '--from', 'summary.json', '--effect', '0.03', '--runs', '5..x'],
    exit: 2,
    names: '--runs',
    setup: notASummary,
  },
  {
    id: 'gate-baseline-missing',
    input: '`gate --baseline` names a file that does not exist',
    args: ['gate', '--baseline', 'nope.json', '--current', 'current.json'],
    exit: 2,
    names: '--baseline nope.json:',
    setup: twoConfigs,
  },
  {
    id: 'gate-current-missing',
    input: '`gate --current` names a file that does not exist',
    args: ['gate', '--baseline', 'baseline.json', '--current', 'nope.json'],
    exit: 2,
    names: '--current nope.json:',
    setup: twoConfigs,
  },
  {
    id: 'gate-different-config',
    input: 'gate: the baseline is of another config than the current run',
    args: ['gate', '--baseline', 'baseline.json', '--current', 'current.json'],
    exit: 2,
    names: 'baseline.json',
    setup: twoConfigs,
  },
  {
    id: 'gate-pass-all-old-summary',
    input: '`gate --pass-all` with a baseline written before per-case pass flags',
    args: ['gate', '--baseline', 'baseline.json', '--current', 'current.json', '--pass-all'],
    exit: 2,
    names: 'baseline.json',
    setup: twoRunsOfOneConfig,
  },
  {
    id: 'baseline-from-missing',
    input: '`baseline update --from` names a summary that does not exist',
    args: ['baseline', 'update', '--from', 'nope.json', '--to', 'baseline.json'],
    exit: 2,
    names: '--from nope.json:',
  },
  {
    id: 'baseline-from-run-missing',
    input: '`baseline update --from` names a run id with no report under --reports-dir',
    args: ['baseline', 'update', '--from', 'fixture-0123', '--to', 'baseline.json'],
    exit: 2,
    names: '--from fixture-0123:',
  },
  {
    id: 'baseline-other-config',
    input: 'baseline update: --to is a baseline of another config',
    args: ['baseline', 'update', '--from', 'current.json', '--to', 'baseline.json'],
    exit: 2,
    names: 'baseline.json',
    setup: twoConfigs,
  },
  {
    id: 'baseline-not-a-baseline',
    input: 'baseline update: --to is a file the gate cannot read',
    args: ['baseline', 'update', '--from', 'current.json', '--to', 'baseline.json'],
    exit: 2,
    names: 'baseline.json',
    setup: async (d) => {
      await twoConfigs(d);
      await write(d, 'baseline.json', '{ "notes": "mine" }\n');
    },
  },
  // writing outputs
  {
    id: 'batches-dir-missing',
    input: '`results batches --results-dir` names a folder that does not exist',
    args: ['results', 'batches', '--results-dir', 'nope'],
    exit: 2,
    names: '--results-dir nope:',
  },
  {
    id: 'batches-collect-config',
    input: '`results batches --collect` without the config whose cells the results go to',
    args: ['results', 'batches', '--results-dir', 'results', '--collect'],
    exit: 2,
    names: '--collect needs --config',
    setup: (d) => write(d, 'results/.keep', ''),
  },
  {
    id: 'batches-collect-cancel',
    input: '`results batches` with both --collect and --cancel',
    args: ['results', 'batches', '--results-dir', 'results', '--collect', '--cancel', '--config', 'x.yaml'],
    exit: 2,
    names: '--collect and --cancel',
    setup: (d) => write(d, 'results/.keep', ''),
  },
  {
    id: 'pdfs-not-folder',
    input: '`--pdfs` names a file, not a folder',
    args: ['corpus', 'ingest', '--pdfs', 'run.yaml', '--index', 'index2', '--embedder', 'bm25', '-q'],
    exit: 2,
    names: '--pdfs run.yaml:',
  },
  {
    id: 'agree-file-missing',
    input: '`judge agree --file` names a file that does not exist',
    args: ['judge', 'agree', '--format', 'attributionbench', '--file', 'nope.jsonl', '--config', 'run.yaml'],
    exit: 2,
    names: '--file nope.jsonl:',
  },
  {
    id: 'agree-compare-pair',
    input: '`judge agree --compare` not two different judge ids',
    args: [
      'judge',
      'agree',
      '--format',
      'attributionbench',
      '--file',
      'run.yaml',
      '--config',
      'run.yaml',
      '--compare',
      'numeric',
    ],
    exit: 2,
    names: '--compare',
  },
  {
    id: 'agree-compare-unknown',
    input: '`judge agree --compare` names a judge the config does not have',
    args: [
      'judge',
      'agree',
      '--format',
      'attributionbench',
      '--file',
      'run.yaml',
      '--config',
      'run.yaml',
      '--compare',
      'numeric,oracle',
    ],
    exit: 2,
    names: '--compare',
  },
  {
    id: 'audit-sample-missing',
    input: '`judge audit --sample` names a file that does not exist',
    args: ['judge', 'audit', '--sample', 'nope.json', '--config', 'run.yaml'],
    exit: 2,
    names: '--sample nope.json:',
  },
  {
    id: 'label-sample-missing',
    input: '`validation label --sample` names a file that does not exist',
    args: ['validation', 'label', '--sample', 'nope.json', '--labeller', 'ana'],
    exit: 2,
    names: '--sample nope.json:',
  },
  {
    id: 'import-index-missing',
    input: '`questions import --index` names a folder that does not exist',
    args: ['questions', 'import', 'questions.jsonl', '--format', 'financebench', '--index', 'nope'],
    exit: 2,
    names: '--index nope:',
  },
  {
    id: 'checksum-index-missing',
    input: '`index checksum --index` names a folder that does not exist',
    args: ['index', 'checksum', '--index', 'nope'],
    exit: 2,
    names: '--index nope:',
  },
  {
    id: 'retrieve-index-missing',
    input: '`retrieve --index` names a folder that does not exist',
    args: ['retrieve', 'revenue', '--index', 'nope'],
    exit: 2,
    names: '--index nope:',
  },
  {
    id: 'budget-dir-missing',
    input: '`budget --results-dir` names a folder that does not exist',
    args: ['budget', '--results-dir', 'nope'],
    exit: 2,
    names: '--results-dir nope:',
  },
  {
    id: 'labels-line',
    input: 'a labels file: a bad line before its last (a torn last line is set aside instead)',
    args: ['validation', 'label', '--sample', 'sample.json', '--labeller', 'ana', '--labels-dir', 'labels'],
    exit: 1,
    names: 'labels/labels-hand-0123456789ab.jsonl:1:',
    setup: async (dir) => {
      await write(dir, 'sample.json', JSON.stringify(handSample(2)));
      await write(dir, 'labels/labels-hand-0123456789ab.jsonl', '{"kind":"label"\n{}\n');
    },
  },
  {
    id: 'batches-record',
    input: 'a batch record that is not JSON',
    args: ['results', 'batches', '--results-dir', 'results'],
    exit: 1,
    names: 'results/.batches/rge-x.json:',
    setup: (d) => write(d, 'results/.batches/rge-x.json', '{"id": "rge-x",\n'),
  },
  {
    id: 'out-under-file',
    input: 'an output path under a regular file (unwritable folder; works as root too)',
    args: ['config', 'schema', '--out', 'blocker/schema.json'],
    exit: 1,
    names: 'blocker/schema.json:',
    setup: (d) => write(d, 'blocker', 'a regular file\n'),
  },
  {
    id: 'out-read-only',
    input: 'an output folder without write permission (chmod 555; not as root)',
    args: ['config', 'schema', '--out', 'ro/schema.json'],
    exit: 1,
    names: 'ro/schema.json:',
    skip: () =>
      isRoot() ? 'running as root, where chmod does not block writes (out-under-file covers it)' : undefined,
    around: async (d) => {
      await mkdir(at(d, 'ro'));
      await chmod(at(d, 'ro'), 0o555);
      return () => chmod(at(d, 'ro'), 0o755);
    },
  },
  {
    id: 'out-disk-full',
    input: 'a full disk while writing (ENOSPC injected half-way; the old file is kept)',
    args: ['config', 'schema', '--out', 'schema.json'],
    exit: 1,
    names: 'schema.json:',
    setup: (d) => write(d, 'schema.json', '{"old": true}\n'),
    fault: { suffix: 'schema.json', code: 'ENOSPC' },
  },
  {
    id: 'out-tmpfs-full',
    input: 'a real full disk: a 4 KiB tmpfs (where it can be mounted; the old file is kept)',
    args: ['config', 'schema', '--out', 'tiny/schema.json'],
    exit: 1,
    names: 'tiny/schema.json:',
    around: async (d) => {
      await mkdir(at(d, 'tiny'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', at(d, 'tiny')], { stdio: 'ignore' });
      await writeFile(at(d, 'tiny/schema.json'), '{"old": true}\n');
      return async () => {
        execFileSync('umount', [at(d, 'tiny')], { stdio: 'ignore' });
      };
    },
  },
  {
    id: 'out-json-disk-full',
    input: '`eval run --dry-run --json FILE` on a full disk (ENOSPC injected)',
    args: ['eval', 'run', '--config', 'run.yaml', '--dry-run', '--json', 'estimate.json'],
    exit: 1,
    names: 'estimate.json:',
    fault: { suffix: 'estimate.json', code: 'ENOSPC' },
  },
];

/** Every file under `dir` with the sha256 of its bytes (folders end in /). */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (sub: string) => {
    for (const e of await readdir(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.set(`${rel}/`, 'dir');
        await walk(rel);
      } else out.set(rel, sha256(await readFile(join(dir, rel))));
    }
  };
  await walk('');
  return out;
}

/** Output with the row's folder written as relative paths (`<dir>/run.yaml` -> `run.yaml`). */
const normalise = (text: string, dir: string) => text.split(`${dir}/`).join('').split(dir).join('.');

/** The error as the doc shows it: from the `rge:` line to the end, lines joined by ` ⏎ `. */
function errorText(stderr: string): string {
  const from = stderr.indexOf('rge: ');
  return from < 0 ? '' : stderr.slice(from).trimEnd().split('\n').join(' ⏎ ');
}

interface DocRow {
  id: string;
  input: string;
  command: string;
  exit: number;
  message: string;
}

/** A code span's text: `x`, or `` x `` for text holding backticks. */
function codeSpan(cell: string): string {
  const m = /^(`+)\s?([\s\S]*?)\s?\1$/.exec(cell.trim());
  return m ? (m[2] as string) : cell.trim();
}

function readDoc(): DocRow[] {
  if (!existsSync(DOC)) return [];
  const rows: DocRow[] = [];
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.replace(/\\\|/g, '|').trim());
    if (cells.length !== 5 || !/^`[a-z0-9-]+`$/.test(cells[0] as string)) continue;
    rows.push({
      id: codeSpan(cells[0] as string),
      input: cells[1] as string,
      command: codeSpan(cells[2] as string),
      exit: Number(cells[3]),
      message: codeSpan(cells[4] as string),
    });
  }
  return rows;
}

/** A doc message as a pattern: `…` stands for any text (hashes, parser wording). */
function messagePattern(message: string): RegExp {
  const parts = message.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*?')}$`);
}

const doc = readDoc();
const printed = new Map<string, { exit: number; message: string }>();

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rge-errors-world-'));
  const goodPdf = await makeTextPdf([PDF_TEXT]);
  await write(dir, 'pdfs/Acme_FY2023-24.pdf', goodPdf);
  const built = await runRge(
    dir,
    'corpus',
    'ingest',
    '--pdfs',
    'pdfs',
    '--index',
    'index',
    '--embedder',
    'bm25',
    '--cache-dir',
    'cache',
    '-q',
  );
  expect(built.err).toBe('');
  expect(built.code).toBe(0);
  await rm(join(dir, 'cache'), { recursive: true });
  const chunks = JSON.parse(await readFile(join(dir, 'index/chunks.json'), 'utf8')) as { id: string }[];
  const chunkId = chunks[0]?.id as string;
  const question = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: 'gd-001',
      version: 1,
      category: 'grounded-direct',
      text: 'What was Acme revenue from operations in FY24?',
      gold_answer: 'Rs 4,512 crore',
      gold_chunk_ids: [chunkId],
      gold_quotes: ['rose to Rs 4,512 crore'],
      expected_behavior: 'answer',
      companies: ['acme-fy2023-24'],
      fiscal_years: ['FY24'],
      difficulty: 'easy',
      authoring_notes: 'errors test',
      must_include: ['4,512'],
      must_not_include: [],
      numeric_gold: [],
      distractor: null,
      ...over,
    });
  await write(dir, 'questions.jsonl', `${question()}\n`);
  await write(dir, 'run.yaml', CONFIG);
  world = { dir, chunkId, goodPdf, question };
});

afterAll(async () => {
  if (world) await rm(world.dir, { recursive: true, force: true });
  const out = process.env.RGE_ERRORS_DOC_OUT;
  if (!out) return;
  const cell = (t: string) => (t.includes('`') ? `\`\` ${t} \`\`` : `\`${t}\``).replace(/\|/g, '\\|');
  const lines = ROWS.filter((r) => printed.has(r.id)).map((r) => {
    const p = printed.get(r.id) as { exit: number; message: string };
    return `| \`${r.id}\` | ${r.input.replace(/\|/g, '\\|')} | ${cell(`rge ${r.args.join(' ')}`)} | ${p.exit} | ${cell(p.message)} |`;
  });
  await writeFile(out, `${lines.join('\n')}\n`);
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rge-errors-'));
  await cp(world.dir, dir, { recursive: true });
  return dir;
}

describe('the good world the rows break', () => {
  it('validates, and a dry run of its config goes through', async () => {
    const dir = await freshDir();
    const config = await runRge(dir, 'config', 'validate', '--config', 'run.yaml');
    expect(config.err).toBe('');
    expect(config.code).toBe(0);
    const questions = await runRge(dir, 'questions', 'validate', '--config', 'run.yaml');
    expect(questions.out).toMatch(/ok: no errors/);
    expect(questions.code).toBe(0);
    const dry = await runRge(dir, 'eval', 'run', '--config', 'run.yaml', '--dry-run');
    expect(dry.err).not.toMatch(/rge:/);
    expect(dry.code).toBe(0);
    await rm(dir, { recursive: true });
  });
});

describe('docs/errors.md', () => {
  it('has one row per case here and no other', () => {
    expect(doc.map((r) => r.id)).toEqual(ROWS.map((r) => r.id));
  });

  it('has at least 30 rows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
  });
});

describe('bad input: one rge: error naming the file, the right exit code, nothing written', () => {
  afterAll(() => setWriteFault(undefined));

  for (const row of ROWS) {
    it(`${row.id}: ${row.input}`, async (ctx) => {
      const reason = row.skip?.();
      if (reason) ctx.skip(reason);
      const dir = await freshDir();
      let undo: (() => Promise<void>) | undefined;
      try {
        await row.setup?.(dir);
        if (row.around) {
          try {
            undo = await row.around(dir);
          } catch (err) {
            ctx.skip(`cannot set up on this machine: ${(err as Error).message.split('\n')[0]}`);
          }
        }
        const before = await snapshot(dir);
        if (row.fault) {
          const { suffix, code } = row.fault;
          setWriteFault((path) =>
            path.endsWith(suffix)
              ? Object.assign(new Error(`${code}: injected by the test, write`), { code })
              : undefined,
          );
        }
        for (const [name, value] of Object.entries(row.env ?? {})) vi.stubEnv(name, value);
        let r: { code: number; out: string; err: string };
        try {
          r = row.spawn
            ? await spawnRge(row.args.map((a) => (a.endsWith('.yaml') ? join(dir, a) : a)))
            : await runRge(dir, ...row.args);
        } finally {
          setWriteFault(undefined);
          vi.unstubAllEnvs();
        }
        const stderr = normalise(r.err, dir);
        const message = errorText(stderr);
        printed.set(row.id, { exit: r.code, message });

        expect(r.code, stderr).toBe(row.exit);
        expect(
          stderr.split('\n').filter((l) => l.startsWith('rge: ')),
          stderr,
        ).toHaveLength(1);
        expect(stderr).not.toMatch(/^\s+at .+[:(]\d+|\bFAIL\b|Error: /m);
        expect(message).toContain(row.names);

        const documented = doc.find((d) => d.id === row.id);
        expect(documented, `docs/errors.md has no row ${row.id}`).toBeDefined();
        if (documented) {
          expect(documented.exit).toBe(row.exit);
          expect(documented.command).toBe(`rge ${row.args.join(' ')}`);
          expect(message).toMatch(messagePattern(documented.message));
        }

        const after = await snapshot(dir);
        const created = [...after.keys()].filter((p) => !before.has(p) && !row.mayCreate?.test(p));
        expect(created, 'files the failed command created').toEqual([]);
        const changed = [...before].filter(([p, h]) => after.get(p) !== h).map(([p]) => p);
        expect(changed, 'files the failed command changed or removed').toEqual([]);
        if (row.id === 'pdf-one-of-two') {
          const manifest = JSON.parse(await readFile(join(dir, 'index2/manifest.json'), 'utf8'));
          expect(JSON.stringify(manifest)).toContain('Acme_FY2023-24.pdf');
          expect(JSON.stringify(manifest)).not.toContain('Corrupt_FY2023-24.pdf');
        }
      } finally {
        await undo?.().catch(() => undefined);
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
    });
  }
});
