// The interface every fae tool capability answers: its schema for the model,
// an execute method, and a help text. Tool authors import it to guard their
// exos (`makeExo('MyTool', FaeToolInterface, { ... })`).
import { M } from '@endo/patterns';

export const FaeToolInterface = M.interface('FaeTool', {
  schema: M.call().returns(M.record()),
  execute: M.call(M.record()).returns(M.promise()),
  help: M.call().returns(M.string()),
});
harden(FaeToolInterface);
