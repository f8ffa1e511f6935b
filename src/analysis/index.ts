/** Shared text analysis for checks and heuristic judges: quantities, refusals, claims, content words. */
export { type CitedClaim, citationMarkers, splitCitedClaims, splitClaims, stripCitations } from './claims.ts';
export {
  DERIVATION_OPS,
  type DerivableGold,
  type DerivationOp,
  type DerivationOperand,
  type DerivedFigure,
  derivationReproduces,
  derive,
  derivedFromPassages,
  type FigureDerivation,
  operandCount,
  type Passage,
  type PrintedOperand,
  printedOperands,
  recordsDerivation,
} from './derivation.ts';
export {
  extractQuantities,
  type GoldFigure,
  type GoldUnit,
  goldUnitScale,
  inGoldUnit,
  intervalsMeet,
  printedHalfUnit,
  type Quantity,
  type QuantityUnit,
  quantityMatchesGold,
  samePrinted,
  sameQuantity,
  unitsCompatible,
  withinRelative,
} from './numbers.ts';
export {
  type FigureHit,
  type FigureScale,
  figureReader,
  findPrintedFigure,
  printedForms,
  printedValue,
  statedScales,
} from './printed-figures.ts';
export { hasRefusalCue, hedgeLevel, isRefusal } from './refusal.ts';
export { type PassageUnit, passageUnits, sentences } from './sentences.ts';
export { contentWords, coverage, overlap, STOP_WORDS } from './tokens.ts';
