/**
 * What the front doors take of a session: a plan opened (`RunSession.open`, or `openRun` from a request),
 * its cells (`SubjectCell`, from `run.work`) and the passages a cell's answer was given (`contextsOf`).
 */
export { type OpenContext, openRun, RunSession } from './open.ts';
export { contextsOf, type SubjectCell } from './work.ts';
