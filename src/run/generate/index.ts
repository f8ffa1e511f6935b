/**
 * Question generation by a model of the registry (`rge questions generate`): the generator over a live
 * model entry of the run config, its cells, and the cost estimate of a plan's tasks.
 */

export { cellWorstUsd, type GenerationCell, generationCells } from './cells.ts';
export {
  EXPECTED_CANDIDATE_TOKENS,
  estimateCells,
  estimateGeneration,
  expectedOutputTokens,
  type GenerationEstimate,
} from './estimate.ts';
export {
  candidatesOf,
  type GeneratorFromConfig,
  ModelGenerator,
  type ModelGeneratorOptions,
  modelGeneratorFromConfig,
  openModelGenerator,
  storedGeneration,
} from './model-generator.ts';
