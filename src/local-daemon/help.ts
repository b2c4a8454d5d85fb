// help(methodName?) for every capability: its documentation is its help.
import { q } from '@endo/errors';

export const makeHelp =
  (summary: string, docs: Readonly<Record<string, string>>) =>
  (methodName?: string): string => {
    if (methodName === undefined) {
      return [summary, '', ...Object.keys(docs).map(name => `- ${name}: ${docs[name]}`)].join('\n');
    }
    if (!Object.hasOwn(docs, methodName)) {
      return `No documentation available for method ${q(methodName)}.`;
    }
    return `${methodName}: ${docs[methodName]}`;
  };
harden(makeHelp);

export const directoryDocs = harden({
  help: 'help(methodName?) documents this object or one method.',
  has: 'has(...path) tells whether a name is bound.',
  identify: 'identify(...path) gives the formula id a name denotes, or undefined.',
  reverseIdentify: 'reverseIdentify(id) lists the names bound to an id.',
  locate: 'locate(...path) gives the locator of a name, or undefined.',
  reverseLocate: 'reverseLocate(locator) lists the names bound to the formula a locator names.',
  followNameChanges:
    'followNameChanges() gives an iterator reference: every current name, then each add or remove.',
  followLocatorNameChanges:
    'followLocatorNameChanges(locator) gives an iterator reference: the names of one formula, then their changes.',
  list: 'list(...path) lists names: special names first, then pet names, each sorted.',
  listIdentifiers: 'listIdentifiers(...path) lists the distinct ids of the names, sorted.',
  lookup: 'lookup(nameOrPath) gives the value a name denotes; throws on an unknown name.',
  reverseLookup: 'reverseLookup(value) lists the names of a value the daemon knows.',
  write: 'write(nameOrPath, id) binds a pet name to a formula id, replacing any binding.',
  remove: 'remove(...path) unbinds a pet name.',
  move: 'move(fromPath, toPath) renames; both are arrays.',
  copy: 'copy(fromPath, toPath) binds a second name to the same formula; both are arrays.',
  makeDirectory: 'makeDirectory(nameOrPath) binds a new empty directory, replacing any binding.',
});

export const agentDocs = harden({
  ...directoryDocs,
  lookupById: 'lookupById(id) gives the value of any formula id.',
  storeValue: 'storeValue(value, nameOrPath) stores a copy of passable data under a pet name.',
  handle: 'handle() gives this agent\'s mail handle.',
  listMessages: 'listMessages() lists undismissed messages in number order.',
  followMessages: 'followMessages() gives an iterator reference: replays the inbox, then follows it.',
  send: 'send(recipient, strings, edgeNames, petNames) sends a package.',
  reply: 'reply(number, strings, edgeNames, petNames) answers a message; number is a bigint.',
  adopt: 'adopt(number, edgeName, nameOrPath) names a value a message carries.',
  dismiss: 'dismiss(number) removes a message from the inbox.',
  dismissAll: 'dismissAll() removes every message.',
  request: 'request(recipient, description, responseName?) asks for a value and waits.',
  resolve: 'resolve(number, nameOrPath) answers a request with a named value.',
  reject: 'reject(number, reason?) declines a request.',
  requestEvaluation:
    'requestEvaluation(source, codeNames, petNames, resultName?) mails HOST code to evaluate with those endowments, and waits for its value.',
});

export const hostDocs = harden({
  ...agentDocs,
  provideGuest: 'provideGuest(petName?, { introducedNames, agentName }) makes or finds a guest.',
  makeUnconfined:
    'makeUnconfined(workerName, specifier, { powersName, resultName, env }) runs a module\'s make().',
  cancel: 'cancel(nameOrPath, reason?) cancels the caplet a name denotes.',
  approveEvaluation: 'approveEvaluation(number, workerName?) evaluates the eval-request in your inbox, and answers it with the value.',
});

const newDocs = harden({
  storeIdentifier: 'storeIdentifier(nameOrPath, id) binds a pet name to a formula id, replacing any binding.',
  storeLocator: 'storeLocator(nameOrPath, locator) binds a pet name to the formula an endo:// locator names.',
  maybeLookup: 'maybeLookup(nameOrPath) is lookup, but undefined when the first name is unbound.',
  listLocators: 'listLocators(...path) gives { name: locator } for the names.',
});
const evalDocs = harden({
  evaluate:
    'evaluate(workerName, source, codeNames, petNames, resultName?) evaluates code with those endowments at once, in a fresh worker without a name.',
});
const formDocs = harden({
  form: 'form(recipient, description, fields) mails a form: fields are { name, label, default?, secret?, pattern? }.',
  submit: 'submit(number, values) answers a form in your inbox with a value message to its sender.',
  sendValue: 'sendValue(number, nameOrPath) answers a message with a named value.',
});
const augDocs = harden({
  lookupByLocator: 'lookupByLocator(locator) gives the value of the formula a locator names.',
  editMessage: 'editMessage(number, strings, edgeNames, petNames, { done }?) revises a package you sent.',
  messageHistory: 'messageHistory(number) lists the revisions of a message, kept in memory.',
});

/**
 * One generation's documentation: May and August have storeIdentifier and
 * friends instead of write; August agents also edit messages.
 */
export const docsFor = (
  dialect: 'feb' | 'may' | 'aug',
  docs: Readonly<Record<string, string>>,
  isAgent: boolean,
): Readonly<Record<string, string>> => {
  if (dialect === 'feb') return docs;
  const { write: _write, requestEvaluation: _request, approveEvaluation: _approve, ...rest } = docs;
  return harden({
    ...rest,
    ...newDocs,
    ...(isAgent ? { ...evalDocs, ...formDocs } : {}),
    ...(dialect === 'aug' && isAgent ? augDocs : {}),
  });
};
harden(docsFor);
