/**
 * The import rules of src/ (docs/adr/0015-layout.md), checked by test/layout.test.ts and by
 * `npx depcruise src` (the same config).
 *
 * LAYERS lists the stage folders from the top (the front doors) to the bottom (helpers that import
 * nothing of ours). A file may import its own folder and any folder on a lower row; never a folder on
 * its own row or a higher one. Together with no-circular this keeps every arrow pointing down the
 * pipeline.
 */
const LAYERS = [
  ['cli'], // the rge command
  ['vitest'], // the eval suite's cases, matchers and reporters
  ['run'], // orchestration: request, plan, session, stages (sync and batch), estimate, case rows
  ['store'], // the results folder: its layout, cell stores, ledger, leases, inbox, batch records, rows, run states, merging
  ['fixtures'], // the synthetic fixture world (facts, PDFs, questions)
  ['models'], // the registry: builds subjects and judges from a config entry
  ['report'], // the report's sections and markdown (shows validation's section)
  ['validation'], // judges against people: sample, labelling page, agreement, audit, their report section
  ['scoring'], // GFS from verdicts
  ['judging', 'checks'], // the judges (prompt, parse, panel, calls, heuristic judges); deterministic checks
  ['subject', 'system'], // the subject prompt; the system-under-test contract and its ways in (module, http, command)
  ['ingest'], // sources -> pages -> chunks -> index; retrieval recall against evidence pages
  ['retrieval', 'questions'], // embedders, index, top-k; the question sets
  ['providers', 'corpus'], // model calls (live SDKs, offline, replay); fetch, PDF pages, chunks
  ['gate'], // the regression gate
  ['analysis', 'stats'], // text analysis (tokens, numbers, sentences, claims); statistics
  ['util'], // errors, files, JSONL, locks
];

/** dependency-cruiser's kinds of package import (declared in package.json or not). */
const NPM_TYPES = ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'];

const rank = new Map(LAYERS.flatMap((row, i) => row.map((folder) => [folder, i])));
const alternation = (folders) => folders.join('|');

/** For each folder: no import of a folder on its row or above it. */
const layerRules = [...rank.keys()].flatMap((folder) => {
  const above = [...rank.keys()].filter((other) => other !== folder && rank.get(other) <= rank.get(folder));
  if (above.length === 0) return [];
  return [
    {
      name: `layer-${folder}`,
      comment: `src/${folder} imports only folders on lower rows of LAYERS (.dependency-cruiser.cjs)`,
      severity: 'error',
      from: { path: `^src/${folder}/` },
      to: { path: `^src/(${alternation(above)})/` },
    },
  ];
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a circle of imports, within a folder or across folders',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unknown-folder',
      comment: 'every folder of src/ has its row in LAYERS (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: `^src/(?!(${alternation([...rank.keys()])})/)` },
      to: {},
    },
    ...layerRules,
    {
      name: 'vitest-only-in-src-vitest',
      comment: 'only src/vitest imports vitest',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/vitest/' },
      to: { path: 'node_modules/(vitest|@vitest|vitest-evals)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sdks-only-in-src-providers',
      comment: 'only src/providers imports the model SDKs',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/providers/' },
      to: { path: 'node_modules/(@anthropic-ai/sdk|openai|@google/genai)/' },
    },
    {
      name: 'src-imports-nothing-outside-src',
      comment:
        'a file of src/ imports src/, packages (node_modules) and node builtins only: never scripts/, test/, bin/ ' +
        'or a file at the root (the layer rules only look inside src/). A package counts wherever it resolves ' +
        '(a linked or hoisted node_modules); a bare specifier dependency-cruiser cannot resolve (a subpath ' +
        'behind an exports map) is left alone',
      severity: 'error',
      from: { path: '^src/' },
      to: {
        pathNot: '^(src|node_modules)/',
        dependencyTypesNot: ['core', ...NPM_TYPES],
        couldNotResolve: false,
      },
    },
    {
      name: 'stats-imports-nothing-of-ours',
      comment: 'src/stats imports only src/stats (and packages)',
      severity: 'error',
      from: { path: '^src/stats/' },
      to: { path: '^src/', pathNot: '^src/stats/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
// not part of dependency-cruiser's schema: read by the layout test and the ADR
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false });
