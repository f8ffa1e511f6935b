/**
 * `rge eval run --dry-run` writes nothing (issue 51): on a fresh clone the fixture world's corpus is
 * not built yet, and a dry run needs its index for the run id and the estimate; it builds it in a
 * temporary folder, says so first, and removes it, leaving the working folder as it found it. The run
 * id it prints is the one a real run gets, which builds the index in place.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { planFromRequest } from '../../src/run/plan/load.ts';
import { parseRunRequest } from '../../src/run/plan/request.ts';
import { runRge } from '../helpers/cli.ts';

const ROOT = join(import.meta.dirname, '../..');

/** Every file and folder under `dir`, relative to it, sorted. */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map((e) => relative(dir, join(dir, e))).sort();
}

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rge-dry-run-'));
  await mkdir(join(work, 'configs'));
  await cp(join(ROOT, 'fixtures/facts.json'), join(work, 'facts.json'));
  // configs/fixture.yaml, in a configs/ folder of its own, over the one-company world
  const doc = parseDocument(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8'));
  doc.setIn(['corpus', 'generated_from'], '../facts.json');
  doc.setIn(['corpus', 'pdfs'], '../generated/pdfs');
  doc.setIn(['corpus', 'index'], '../generated/index');
  doc.setIn(['questions', 'file'], join(ROOT, 'fixtures/questions.jsonl'));
  doc.setIn(['subject_prompt', 'file'], join(ROOT, 'prompts/subject.md'));
  await writeFile(join(work, 'configs/run.yaml'), doc.toString());
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('rge eval run --dry-run on a corpus not built yet', () => {
  it('builds the index in a temporary folder, says so first, and leaves the working folder as it was', async () => {
    const before = await listing(work);
    const args = ['eval', 'run', '--config', 'configs/run.yaml', '--questions', '2', '--dry-run'];
    const dry = await runRge(work, ...args);
    expect(dry.code, dry.err).toBe(0);
    expect(await listing(work)).toEqual(before);
    const notice = dry.err
      .split('\n')
      .findIndex((l) => l.includes('this dry run builds it in a temporary folder'));
    const building = dry.err
      .split('\n')
      .findIndex((l) => l.includes('building the fixture corpus and index'));
    expect(notice, dry.err).toBeGreaterThanOrEqual(0);
    expect(notice).toBeLessThan(building);
    expect(dry.err).toContain('the fixture index at generated/index is not built');
    const runId = /^run (\S+) \(dry run: nothing is called\)/m.exec(dry.out)?.[1];
    expect(runId, dry.out).toBeDefined();
    // the same run id as a real run's plan, which builds the index in place
    const logs: string[] = [];
    const plan = await planFromRequest(parseRunRequest({ config: 'configs/run.yaml', questions: 2 }), {
      root: work,
      log: (line) => logs.push(line),
    });
    expect(logs[0]).toMatch(/building the fixture corpus and index \(first use\)/);
    expect(plan.info.runId).toBe(runId);
    expect(await listing(work)).toContain(join('generated', 'index', 'manifest.json'));
    // with the index built, a dry run uses it and says nothing of a temporary folder
    const again = await runRge(work, ...args);
    expect(again.code, again.err).toBe(0);
    expect(again.err).not.toContain('temporary folder');
    expect(again.out).toContain(`run ${runId} `);
  }, 300_000);

  it('with --rerun, plans the subject as asked again but records nothing', async () => {
    const args = ['eval', 'run', '--config', 'configs/run.yaml', '--questions', '2', '--dry-run'];
    const plain = await runRge(work, ...args);
    const before = await listing(work);
    const dry = await runRge(work, ...args, '--rerun', 'eager');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain(
      'rerun: eager (offline/eager) would be asked again, epoch 1 (a dry run: not recorded)',
    );
    expect(await listing(work)).toEqual(before);
    // its plan is the rerun's: another run id than without --rerun
    const runId = (out: string) => /^run (\S+) \(dry run: nothing is called\)/m.exec(out)?.[1];
    expect(runId(dry.out)).toBeDefined();
    expect(runId(dry.out)).not.toBe(runId(plain.out));
  }, 300_000);
});
