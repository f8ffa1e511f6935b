/**
 * What `rge eval watch` watches of a plan (src/run/watch/inputs.ts) and how it reads a change: the
 * config, the question file, the subject prompt only when a model subject reads it, each system's module
 * and version files (a folder with what it holds); a system that declares its version is marked, and a
 * change of its files is said to change no cell. And which cases changed between two runs
 * (src/run/watch/changes.ts `caseChanges`), said in a few lines (src/cli/watch-lines.ts).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changeLines } from '../../src/cli/watch-lines.ts';
import type { RunPlan } from '../../src/run/plan/plan.ts';
import { type CaseDigest, caseChanges, type RunDigest } from '../../src/run/watch/changes.ts';
import { changesCells, declaredChanges, watchedInputs } from '../../src/run/watch/inputs.ts';

/** The parts of a plan the inputs are read from. */
function planOf(subjects: Record<string, unknown>[], prompt: string | null = 'prompts/subject.md'): RunPlan {
  return {
    request: { config: 'configs/watch.yaml' },
    config: { questions: { file: 'fixtures/questions.jsonl' }, subject_prompt: { file: prompt } },
    subjects: subjects.map((config) => ({ id: config.id, provider: config.provider, config })),
  } as unknown as RunPlan;
}

describe('watchedInputs', () => {
  it("watches the prompt only for a model subject, and a system's module and version files", async () => {
    const root = await mkdtemp(join(tmpdir(), 'rge-watch-inputs-'));
    await mkdir(join(root, 'app', 'lib'), { recursive: true });
    await writeFile(join(root, 'app', 'prompt.md'), 'x');
    const systems = [
      { id: 'app', provider: 'module', module: 'app/app.ts', version_files: ['app/lib', 'app/prompt.md'] },
      { id: 'http', provider: 'http', version: '1.4.2', version_files: ['app/lib'] },
    ];
    const onlySystems = await watchedInputs(planOf(systems), root);
    expect(onlySystems.files).toEqual(
      ['configs/watch.yaml', 'fixtures/questions.jsonl', 'app/app.ts', 'app/prompt.md'].map((f) =>
        join(root, f),
      ),
    );
    expect(onlySystems.trees).toEqual([join(root, 'app/lib')]);
    expect(onlySystems.declared).toEqual([
      { path: join(root, 'app/lib'), subject: 'http', version: '1.4.2' },
    ]);
    // app/lib is http's (declared) and app's (versioned by its files): a change there may change a cell
    expect(changesCells(onlySystems, join(root, 'app/lib/retriever.ts'))).toBe(true);
    const declaredOnly = await watchedInputs(planOf([systems[1] as Record<string, unknown>]), root);
    expect(changesCells(declaredOnly, join(root, 'app/lib/retriever.ts'))).toBe(false);
    expect(changesCells(declaredOnly, join(root, 'configs/watch.yaml'))).toBe(true);
    const withModel = await watchedInputs(planOf([{ id: 'm', provider: 'offline' }, ...systems]), root);
    expect(withModel.files).toContain(join(root, 'prompts/subject.md'));
    const builtInPrompt = await watchedInputs(planOf([{ id: 'm', provider: 'offline' }], null), root);
    expect(builtInPrompt.files).toEqual(
      ['configs/watch.yaml', 'fixtures/questions.jsonl'].map((f) => join(root, f)),
    );
  });

  it("says a change of a declared system's files changes no cell, and nothing for other files", () => {
    const inputs = {
      cellInputs: ['/r/prompt.md'],
      files: ['/r/app.ts', '/r/prompt.md'],
      trees: ['/r/lib'],
      declared: [
        { path: '/r/app.ts', subject: 'app', version: '2' },
        { path: '/r/lib', subject: 'app', version: '2' },
      ],
    };
    expect(declaredChanges(inputs, ['/r/prompt.md'], '/r')).toEqual([]);
    expect(declaredChanges(inputs, ['/r/app.ts', '/r/lib/x.ts', '/r/prompt.md'], '/r')).toEqual([
      'app.ts, lib/x.ts changed, but subject app declares its version ("2"): its stored answers stand; change its version: to have it asked again',
    ]);
  });
});

const digest = (cases: [string, string, number | null][]): RunDigest =>
  new Map(
    cases.map(([name, identity, gfs]): [string, CaseDigest] => [
      name,
      {
        name: `${name.split('/')[0]} › grounded-direct › ${name.split('/')[1]} › run 0`,
        subject: name.split('/')[0] as string,
        identity,
        gfs,
      },
    ]),
  );

describe('caseChanges and changeLines', () => {
  it('lists the cases whose answer or verdicts are other records, the largest GFS changes first', () => {
    const before = digest([
      ['a/q1', 'x1', 1],
      ['a/q2', 'x2', 0.5],
      ['b/q1', 'y1', 0.8],
      ['b/q3', 'y3', 0.4],
    ]);
    const after = digest([
      ['a/q1', 'x1', 1],
      ['a/q2', 'x2*', 0.9],
      ['b/q1', 'y1*', 0.7],
      ['b/q4', 'y4', null],
    ]);
    const changes = caseChanges(before, after);
    expect(changes.changed.map((c) => c.name)).toEqual([
      'a › grounded-direct › q2 › run 0',
      'b › grounded-direct › q1 › run 0',
    ]);
    expect(changes.added.map((c) => c.name)).toEqual(['b › grounded-direct › q4 › run 0']);
    expect(changes.removed).toBe(1);
    expect(changeLines(changes)).toEqual([
      '2 of 4 cases changed since the last run (a 1, b 1), 1 new (b 1), 1 no longer in the run; mean GFS of the changed cases 0.650 -> 0.800',
      '  a › grounded-direct › q2 › run 0: GFS 0.500 -> 0.900',
      '  b › grounded-direct › q1 › run 0: GFS 0.800 -> 0.700',
    ]);
    expect(changeLines(changes, 1).at(-1)).toBe('  ... and 1 more (the report lists every case)');
    expect(changeLines(caseChanges(after, after))).toEqual(['no case changed since the last run (4 cases)']);
  });
});
