/**
 * Judges against people: human-labelled public datasets read into judge cases (one reader per format),
 * the agreement of a judge's verdicts with the people's labels (kappa with a bootstrap interval), the
 * runner that judges a dataset's items, and the tables `rge judge agree` prints.
 */

export {
  KAPPA_CONFIDENCE,
  KAPPA_INTERVAL_METHOD,
  KAPPA_RESAMPLES,
  type KappaInterval,
  kappaInterval,
} from '../../stats/index.ts';
export { attributionBenchItems } from './attributionbench.ts';
export {
  AGREEMENT_FORMATS,
  type AgreementFormat,
  type AgreementItem,
  deterministicSample,
  FORMAT_DIMENSION,
  FORMAT_LABELS,
  FORMAT_SUBSET,
  UNNAMED_SUBSET,
  verdictLabel,
} from './datasets.ts';
export {
  financeBenchItems,
  financeBenchMode,
} from './financebench.ts';
export {
  type JudgeItemsOptions,
  judgeItems,
} from './judge-items.ts';
export {
  AGREEMENT_SEED_RULE,
  type AgreementOptions,
  type AgreementReport,
  agreement,
  agreementBySubset,
  agreementSeed,
  POOLED,
  subsetsOf,
} from './kappa.ts';
export {
  saladDocsFileName,
  saladItems,
  saladSetting,
  saladSupported,
} from './salad.ts';
export {
  formatAgreement,
  formatAgreementTable,
  formatKappa,
  subsetLabel,
} from './table.ts';
