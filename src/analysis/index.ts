/** Shared text analysis for checks and heuristic judges: quantities, refusals, claims, content words. */
export { type CitedClaim, citationMarkers, splitCitedClaims, splitClaims, stripCitations } from './claims.ts';
export {
  extractQuantities,
  type GoldFigure,
  type GoldUnit,
  type Quantity,
  type QuantityUnit,
  quantityMatchesGold,
  sameQuantity,
  unitsCompatible,
  withinRelative,
} from './numbers.ts';
export {
  type FigureHit,
  type FigureScale,
  findPrintedFigure,
  printedForms,
  statedScales,
} from './printed-figures.ts';
export { hasRefusalCue, hedgeLevel, isRefusal } from './refusal.ts';
export { sentences } from './sentences.ts';
export { contentWords, coverage, overlap, STOP_WORDS } from './tokens.ts';
