// Interface guards of the daemon's exos (spec §1.4; next spec §1, §3, §4),
// per generation. Guards check types only; name syntax is checked inside
// the methods. Shapes are named once.
import { M } from '@endo/patterns';
import type { Dialect } from '../daemon/dialect.js';

const NameShape = M.string();
const NamePathShape = M.arrayOf(NameShape);
const NameOrPathShape = M.or(NameShape, NamePathShape);
const NamesOrPathsShape = M.arrayOf(NameOrPathShape);
const IdShape = M.string();
/** A JS number is rejected here even where it could be coerced. */
const MessageNumberShape = M.bigint();
/** Every env value must be a string; `{ X: undefined }` fails. */
const EnvShape = M.recordOf(M.string(), M.string());
const MakeCapletOptionsShape = M.splitRecord(
  {},
  { powersName: NameShape, resultName: NameOrPathShape, env: EnvShape, workerTrustedShims: M.arrayOf(M.string()) },
);

const directoryMethods = {
  help: M.call().optional(M.string()).returns(M.any()),
  has: M.call().rest(NamePathShape).returns(M.any()),
  identify: M.call().rest(NamePathShape).returns(M.any()),
  reverseIdentify: M.call(IdShape).returns(M.any()),
  locate: M.call().rest(NamePathShape).returns(M.any()),
  reverseLocate: M.call(M.string()).returns(M.any()),
  followNameChanges: M.call().returns(M.any()),
  followLocatorNameChanges: M.call(M.string()).returns(M.any()),
  list: M.call().rest(NamePathShape).returns(M.any()),
  listIdentifiers: M.call().rest(NamePathShape).returns(M.any()),
  lookup: M.call(NameOrPathShape).returns(M.any()),
  reverseLookup: M.call(M.any()).returns(M.any()),
  write: M.call(NameOrPathShape, IdShape).returns(M.any()),
  remove: M.call().rest(NamePathShape).returns(M.any()),
  move: M.call(NamePathShape, NamePathShape).returns(M.any()),
  copy: M.call(NamePathShape, NamePathShape).returns(M.any()),
  makeDirectory: M.call(NameOrPathShape).returns(M.any()),
};

const agentMethods = {
  ...directoryMethods,
  lookupById: M.call(IdShape).returns(M.any()),
  storeValue: M.call(M.any(), NameOrPathShape).returns(M.any()),
  handle: M.call().returns(M.any()),
  listMessages: M.call().returns(M.any()),
  followMessages: M.call().returns(M.any()),
  send: M.call(NameOrPathShape, M.arrayOf(M.string()), M.arrayOf(M.string()), NamesOrPathsShape).returns(M.any()),
  reply: M.call(MessageNumberShape, M.arrayOf(M.string()), M.arrayOf(M.string()), NamesOrPathsShape).returns(M.any()),
  adopt: M.call(MessageNumberShape, M.string(), NameOrPathShape).returns(M.any()),
  dismiss: M.call(MessageNumberShape).returns(M.any()),
  dismissAll: M.call().returns(M.any()),
  request: M.call(NameOrPathShape, M.string()).optional(NameOrPathShape).returns(M.any()),
  resolve: M.call(MessageNumberShape, NameOrPathShape).returns(M.any()),
  reject: M.call(MessageNumberShape).optional(M.string()).returns(M.any()),
};

/** May and August replace `write`; August adds edits and locator lookups. */
const newDirectoryMethods = {
  storeIdentifier: M.call(NameOrPathShape, IdShape).returns(M.any()),
  storeLocator: M.call(NameOrPathShape, M.string()).returns(M.any()),
  maybeLookup: M.call(NameOrPathShape).returns(M.any()),
  listLocators: M.call().rest(NamePathShape).returns(M.any()),
};

const withoutWrite = <T extends { write: unknown }>(methods: T): Omit<T, 'write'> => {
  const { write: _write, ...rest } = methods;
  return rest;
};

const StringsShape = M.arrayOf(M.string());

/** February: evaluation waits for the host; later: it runs at once (next spec §6). */
const febEvalMethods = {
  requestEvaluation: M.call(M.string(), M.arrayOf(M.string()), NamesOrPathsShape).optional(NameOrPathShape).returns(M.any()),
};
const febHostEvalMethods = {
  approveEvaluation: M.call(MessageNumberShape).optional(NameShape).returns(M.any()),
};
const newEvalMethods = {
  evaluate: M.call(M.or(NameShape, M.undefined()), M.string(), M.arrayOf(M.string()), NamesOrPathsShape)
    .optional(NameOrPathShape)
    .returns(M.any()),
};

const hostMethods = {
  provideGuest: M.call().optional(NameShape, M.record()).returns(M.any()),
  makeUnconfined: M.call(M.or(NameShape, M.undefined()), M.string())
    .optional(MakeCapletOptionsShape)
    .returns(M.any()),
  cancel: M.call(NameOrPathShape).optional(M.any()).returns(M.any()),
};

const makeInterfaces = (dialect: Dialect) => {
  if (dialect === 'feb') {
    return harden({
      DirectoryInterface: M.interface('EndoDirectory', directoryMethods),
      GuestInterface: M.interface('EndoGuest', { ...agentMethods, ...febEvalMethods }),
      HostInterface: M.interface('EndoHost', { ...agentMethods, ...febEvalMethods, ...hostMethods, ...febHostEvalMethods }),
    });
  }
  const directory = { ...withoutWrite(directoryMethods), ...newDirectoryMethods };
  const agent = {
    ...withoutWrite(agentMethods),
    ...newDirectoryMethods,
    // The optional fifth argument sets replyTo.
    send: M.call(NameOrPathShape, StringsShape, StringsShape, NamesOrPathsShape)
      .optional(MessageNumberShape)
      .returns(M.any()),
    form: M.call(NameOrPathShape, M.string(), M.arrayOf(M.record())).returns(M.any()),
    submit: M.call(MessageNumberShape, M.record()).returns(M.any()),
    sendValue: M.call(MessageNumberShape, NameOrPathShape).returns(M.any()),
    ...newEvalMethods,
    ...(dialect === 'aug'
      ? {
          lookupByLocator: M.call(M.string()).returns(M.any()),
          editMessage: M.call(MessageNumberShape, StringsShape, StringsShape, NamesOrPathsShape)
            .optional(M.splitRecord({}, { done: M.boolean() }))
            .returns(M.any()),
          messageHistory: M.call(MessageNumberShape).returns(M.any()),
        }
      : {}),
  };
  return harden({
    DirectoryInterface: M.interface('EndoDirectory', directory),
    GuestInterface: M.interface('EndoGuest', agent),
    HostInterface: M.interface('EndoHost', { ...agent, ...hostMethods }),
  });
};

/**
 * `any`: the three generations' guards differ in method names, so the
 * methods makeExo would derive from one guard's type fit none of them; the
 * guards themselves check every call at run time.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Interfaces = { readonly DirectoryInterface: any; readonly GuestInterface: any; readonly HostInterface: any };

const interfaces = new Map<Dialect, Interfaces>();

/** The guards of one generation, made once. */
export const interfacesFor = (dialect: Dialect): Interfaces => {
  let found = interfaces.get(dialect);
  if (found === undefined) {
    found = makeInterfaces(dialect);
    interfaces.set(dialect, found);
  }
  return found;
};

/** `next` takes no arguments at all: `next(undefined)` is rejected. */
export const AsyncIteratorInterface = M.interface('AsyncIterator', {
  next: M.call().returns(M.any()),
  return: M.call().optional(M.any()).returns(M.any()),
  throw: M.call().optional(M.any()).returns(M.any()),
});

export const DismisserInterface = M.interface('EndoDismisser', {
  dismiss: M.call().returns(M.any()),
});

export const HandleInterface = M.interface('EndoHandle', {}, { defaultGuards: 'passable' });

export const ContextInterface = M.interface('Context', {
  id: M.call().returns(M.string()),
  whenCancelled: M.call().returns(M.promise()),
  whenDisposed: M.call().returns(M.promise()),
  cancel: M.call().optional(M.error()).returns(M.promise()),
});
