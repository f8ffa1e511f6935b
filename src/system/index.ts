/**
 * The system under test and its ways in: the contract (what rge asks, what a system answers, checked),
 * and the three kinds of system a run config can name besides rge's own pipeline: a module's function
 * (`loadModuleSystem`), an HTTP endpoint (`httpSystem`, pre-flight `checkReachable`) and a command
 * (`commandSystem`, pre-flight `checkProgram`). A question a system fails is a `SystemFailure`, an
 * answer that does not fit is a `ContractError`: that cell's failure, never a crash. The public surface
 * of the folder; the modules behind it are private.
 */
export { type CommandSystemOptions, checkProgram, commandSystem } from './command.ts';
export {
  ContractError,
  checkAnswer,
  SystemAnswer,
  type SystemAnswerInput,
  SystemContext,
  SystemQuestion,
  SystemToolCall,
  type SystemUnderTest,
} from './contract.ts';
export { SystemFailure } from './failure.ts';
export { checkReachable, type HttpSystemOptions, httpSystem } from './http.ts';
export { loadModuleSystem, type ModuleSystemOptions, type SystemFunction } from './module.ts';
