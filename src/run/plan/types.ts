/**
 * The shapes of a run's plan (plan.ts computes it): the planned subjects and judges, the run's info,
 * the plan itself and what it is computed from. Types only, and `resolveFrom`, which every step that
 * resolves a request's or config's path shares, and `usesIndex`, which every step that builds, reads or
 * describes rge's index asks.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Judge } from '../../judging/config.ts';
import type { JudgePrompt } from '../../judging/prompt.ts';
import { answersFromIndex, type KindName, kindOf } from '../../models/kinds.ts';
import type { ProviderName } from '../../models/spec.ts';
import type { PricedModel } from '../../providers/catalogue.ts';
import type { RequestParameters } from '../../providers/types.ts';
import type { Question } from '../../questions/schema.ts';
import type { DescribedModelView, RunDescription } from '../../report/views.ts';
import type { Subject } from '../../subject/config.ts';
import type { SubjectPrompt } from '../../subject/prompt.ts';
import type { RunConfig, RunMode } from '../config/config.ts';
import type { RunRequest } from './request.ts';

/** What identifies a provider's behaviour: its id and the version of its code or data. */
export interface ProviderIdentity {
  id: string;
  version: string;
}

/** A subject or judge of the plan: its config entry and everything its requests and prices need. */
export interface PlannedModel {
  id: string;
  provider: ProviderName;
  model: string;
  family: string;
  /**
   * its kind (the table of kinds, src/models/kinds.ts), decided once here: what runs the plan reads it
   * here, never from the provider name
   */
  kind: KindName;
  /** the provider's identity (part of every cell's identity and of the run id) */
  identity: ProviderIdentity;
  priced: PricedModel;
  /** what its requests send besides the prompt (the config within the model's contract) */
  parameters: RequestParameters;
  /** the output token limit its requests send (plus Gemini 3's thinking allowance) */
  maxTokens: number;
}

export interface PlannedSubject extends PlannedModel {
  config: Subject;
}

export interface PlannedJudge extends PlannedModel {
  config: Judge;
}

/** A subject or judge as the report describes it, with the parameters its requests sent besides the prompt. */
export interface DescribedModel extends DescribedModelView {
  /** the sampling and reasoning parameters every request of this model sent */
  parameters: RequestParameters;
}

export interface RunInfo {
  runId: string;
  seed: string;
  configHash: string;
  indexChecksum: string;
  questionsHash: string;
  reportsDir: string;
  resultsDir: string;
  /** the run's state file (estimate, stage outcome), read by the reporter */
  stateFile: string;
  /** human labels and contested reviews (rge validation label, rge validation review), read by the reporter */
  labelsDir: string;
  /** the pre-registered kappa threshold against people */
  minKappa: number;
  /** a documented limitation of the judges' validation (the config's), printed in the report */
  limitation: string | null;
  /** the config's GFS weights: the report computes the people's GFS of labelled cells with them */
  gfsWeights: { correctness: number; grounding: number; calibration: number };
  mode: RunMode;
  configFile: string;
  /** cells of the run: subjects x questions x runs (a report with fewer cases is partial) */
  cells: number;
  /** what was run, for the report's first table */
  describe: RunDescription<DescribedModel>;
}

export interface RunPlan {
  request: RunRequest;
  config: RunConfig;
  /** the subject prompt (the config's prompt file, or the built-in v1) */
  subjectPrompt: SubjectPrompt;
  /** the judge prompt, chosen once: every judge request, verdict identity and record uses this one */
  judgePrompt: JudgePrompt;
  /** the run's questions, in the question file's order */
  questions: Question[];
  subjects: PlannedSubject[];
  /** the judges some subject's panel needs, in config order */
  judges: PlannedJudge[];
  /** each subject's cross-family panel: judge ids in panel order */
  panels: Record<string, string[]>;
  runs: number;
  info: RunInfo;
  /** what the front door says before the run (the questions a narrowed run covers; a dry run's warnings) */
  notes: string[];
}

/** What a plan is computed from; the front door loads it (load.ts). */
export interface PlanInputs {
  request: RunRequest;
  /** the folder the request's relative paths are resolved against */
  root: string;
  /** the config file, absolute */
  configFile: string;
  config: RunConfig;
  /** the config's question file, absolute */
  questionsFile: string;
  /** every question of that file, in file order */
  allQuestions: readonly Question[];
  /** sha256 of the question file */
  questionsHash: string;
  subjectPrompt: SubjectPrompt;
  /** the index's identity; null only for a dry run whose index is not built */
  index: { checksum: string } | null;
  /** each chosen subject's and needed judge's provider identity, by `subject:<id>` / `judge:<id>` */
  identities: Readonly<Record<string, ProviderIdentity>>;
  /** the model prices (pure: the catalogue's, or the config's) */
  priceOf: (entry: Subject | Judge, who: string) => PricedModel;
  dryRun: boolean;
}

/** A path of the request or config, absolute (relative ones are relative to the root). */
export function resolveFrom(root: string, path: string): string {
  return isAbsolute(path) ? path : resolve(root, path);
}

/**
 * Whether these subjects answer from rge's index: a model subject does (rge's pipeline retrieves its
 * context); a system (module, http, command) retrieves for itself, so a run of systems only builds and
 * reads no index of rge's.
 */
export function usesIndex(subjects: readonly { provider: ProviderName }[]): boolean {
  return subjects.some((s) => answersFromIndex(kindOf(s.provider).kind));
}

/** The index checksum of a run whose subjects are all systems: it has no index of rge's. */
export const NO_INDEX = 'none';
