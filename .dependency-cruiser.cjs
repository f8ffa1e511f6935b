/**
 * The import rules of src/ (docs/adr/0015-layout.md), checked by test/layout.test.ts and by
 * `npx depcruise src` (the same config).
 *
 * LAYERS lists the stage folders from the top (the front doors) to the bottom (helpers that import
 * nothing of ours). A file may import its own folder and any folder on a lower row; never a folder on
 * its own row or a higher one. Together with no-circular this keeps every arrow pointing down the
 * pipeline.
 *
 * RUN_LAYERS does the same inside src/run, whose sub-folders follow a run (docs/adr/0039-run-folders.md):
 * a file of src/run/<folder> imports its own folder and the sub-folders of src/run on lower rows only,
 * and every file of src/run is in one of them.
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
  ['traces'], // logged traces: import (OTLP, OpenInference, contract JSON Lines) into cases, drift between windows
  ['subject', 'system'], // the subject prompt; the system-under-test contract and its ways in (module, http, command)
  ['ingest'], // sources -> pages -> chunks -> index; retrieval recall against evidence pages
  ['retrieval', 'questions'], // embedders, index, top-k; the question sets
  ['providers', 'corpus'], // model calls (live SDKs, offline, replay); fetch, PDF pages, chunks
  ['gate'], // the regression gate
  ['analysis', 'stats'], // text analysis (tokens, numbers, sentences, claims); statistics
  ['util'], // errors, files, JSONL, locks
];

/**
 * The sub-folders of src/run, from the top (what the front doors call last) to the bottom (what a run is
 * made from first): read from the bottom up, the way a run goes.
 */
const RUN_LAYERS = [
  ['case', 'watch', 'generate'], // a case row from the stores; watch mode's inputs and the changes between two runs; question generation by a model
  ['stages'], // the stages in their order (pre-flight, answers, verdicts), the checks stage
  ['estimate'], // what a run would call and cost, its printed lines
  ['batch'], // batch mode: groups, waves, calls, lookups, the provider's files, orphans, the batch plan
  ['sync'], // sync calls, a cell's lease, the context every stage shares
  ['session'], // a plan opened (index, stores, providers, subjects) and its work (cells and their keys)
  ['plan'], // the request, loading its inputs, the plan (pure)
  ['config'], // the run config (schema, rules across fields, paths), the index it names
];

/** dependency-cruiser's kinds of package import (declared in package.json or not). */
const NPM_TYPES = ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'];

const alternation = (folders) => folders.join('|');
const rankOf = (layers) => new Map(layers.flatMap((row, i) => row.map((folder) => [folder, i])));
const rank = rankOf(LAYERS);
const runRank = rankOf(RUN_LAYERS);

/** For each folder of `base`: no import of a folder of `base` on its row or above it. */
const layerRulesOf = (base, ranks, name, list) =>
  [...ranks.keys()].flatMap((folder) => {
    const above = [...ranks.keys()].filter(
      (other) => other !== folder && ranks.get(other) <= ranks.get(folder),
    );
    if (above.length === 0) return [];
    return [
      {
        name: `${name}-${folder}`,
        comment: `${base}${folder} imports only folders on lower rows of ${list} (.dependency-cruiser.cjs)`,
        severity: 'error',
        from: { path: `^${base}${folder}/` },
        to: { path: `^${base}(${alternation(above)})/` },
      },
    ];
  });
const layerRules = layerRulesOf('src/', rank, 'layer', 'LAYERS');
const runLayerRules = layerRulesOf('src/run/', runRank, 'run-layer', 'RUN_LAYERS');

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
      name: 'run-no-unknown-folder',
      comment:
        'every file of src/run is in a sub-folder that has its row in RUN_LAYERS (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: `^src/run/(?!(${alternation([...runRank.keys()])})/)` },
      to: {},
    },
    ...runLayerRules,
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
Object.defineProperty(module.exports, 'RUN_LAYERS', { value: RUN_LAYERS, enumerable: false });
