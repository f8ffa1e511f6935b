/**
 * The run config's rules across fields (src/run/config/config.ts runs them in its schema's refinement), written
 * over unknown data, since they run on partly invalid configs too: one pass reports everything.
 */
import { corpusIssues } from '../../ingest/config.ts';
import { judgePromptIssues } from '../../judging/config.ts';
import { crossFamilyPanel } from '../../judging/panel.ts';
import { findKind } from '../../models/kinds.ts';
import { modelEntryIssues } from '../../providers/config.ts';
import { gfsWeightsIssues } from '../../scoring/config.ts';
import { subjectIssues } from '../../subject/config.ts';
import { type AddIssue, type ConfigCtx, isRecord, records } from '../../util/config-fields.ts';
import { errorMessage } from '../../util/errors.ts';

/** Rules across fields; written over unknown data, since they run on partly invalid configs too. */
export function crossFieldIssues(value: unknown, ctx: ConfigCtx): void {
  if (!isRecord(value)) return;
  const issue: AddIssue = (path, message) =>
    ctx.addIssue({ code: 'custom', path, message, input: undefined });

  corpusIssues(value.corpus, issue);
  corpusNeeded(value, issue);

  const budget = value.budget;
  if (isRecord(budget) && typeof budget.cap_usd === 'number' && typeof budget.warn_usd === 'number') {
    const offline = budget.cap_usd === 0 && budget.warn_usd === 0;
    if (!offline && budget.warn_usd >= budget.cap_usd)
      issue(
        ['budget', 'warn_usd'],
        `must be less than cap_usd (${budget.cap_usd}); only a 0 cap allows a 0 warning`,
      );
  }

  gfsWeightsIssues(value.gfs_weights, issue);
  judgePromptIssues(value.judge_prompt, issue);

  const subjects = records(value.subjects);
  const judges = records(value.judges);
  const lists = [
    ['subjects', subjects],
    ['judges', judges],
  ] as const;
  for (const [key, list] of lists) {
    const first = new Map<unknown, number>();
    for (const [i, item] of list) {
      if (typeof item.id !== 'string') continue;
      const at = first.get(item.id);
      if (at === undefined) first.set(item.id, i);
      else issue([key, i, 'id'], `duplicate id ${item.id} (first at ${key}[${at}])`);
    }
  }
  for (const [key, list] of lists) for (const [i, m] of list) modelEntryIssues(key, i, m, issue);
  for (const [i, s] of subjects) {
    subjectIssues(i, s, issue);
    if (typeof s.family !== 'string' || judges.length === 0) continue;
    const candidates = judges.flatMap(([, j]) =>
      typeof j.family === 'string' ? [{ id: String(j.id), family: j.family }] : [],
    );
    try {
      crossFamilyPanel(s.family, candidates);
    } catch (err) {
      issue(['subjects', i, 'family'], errorMessage(err));
    }
  }
}

/**
 * The corpus section may be left out only by a config whose subjects are all systems (module, http,
 * command), which retrieve for themselves; a model subject answers from rge's index.
 */
function corpusNeeded(config: Record<string, unknown>, issue: AddIssue): void {
  if (config.corpus !== undefined) return;
  const model = records(config.subjects).find(
    ([, s]) => typeof s.provider === 'string' && findKind(s.provider)?.kind !== 'system',
  );
  if (model)
    issue(
      ['corpus'],
      `required field is missing (expected object): subject ${String(model[1].id)} (provider ${String(model[1].provider)}) answers from rge's index; ` +
        'only a config whose subjects are all systems (module, http, command) may leave it out',
    );
}
