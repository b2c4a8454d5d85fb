// The one door all of fae's outgoing mail passes: a view of the guest
// powers whose mail-sending methods redact the texts they carry (what a
// reply or send says, a request's description, a rejection's reason, an
// edit's new text). fae holds only this view, so a text reaches nobody
// unredacted, whichever tool, notice or startup step sends it. Every other
// method is passed on as it is.
import { E, Far } from '@endo/far';
import { sendTo } from './near-call.js';
import type { GuestPowers, Ref } from './endo-types.js';
import type { Redact } from '../logging/redact.js';

/**
 * The argument a recipient reads, for each guest method that sends mail in
 * any daemon generation (../shared/spec/endo-guest-api.md §4.1,
 * endo-guest-api-next.md §3.3-3.4): a text or a list of texts.
 */
const MAIL_TEXT_ARGUMENT: ReadonlyMap<string, number> = new Map([
  ['send', 1], // strings
  ['reply', 1], // strings
  ['editMessage', 1], // strings (August)
  ['request', 1], // description
  ['reject', 1], // reason
  ['form', 1], // description
]);

const redactTexts = (value: unknown, redact: Redact): unknown => {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    return harden(value.map(item => (typeof item === 'string' ? redact(item) : item)));
  }
  return value;
};

// `any`: the guest powers are a remote object; its methods are forwarded
// by name.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Remote = any;

/**
 * The guest powers as fae holds them: the same methods (read from the
 * daemon's own object, so dialect detection sees what it would), with the
 * mail texts redacted on the way out.
 */
export const redactOutgoingMail = async (
  powers: Ref<GuestPowers>,
  redact: Redact,
): Promise<GuestPowers> => {
  const names = (await E(powers as Remote).__getMethodNames__()) as readonly (string | symbol)[];
  const methods: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of names) {
    // A Far object answers __getMethodNames__ by itself.
    if (typeof name !== 'string' || name === '__getMethodNames__') continue;
    const textAt = MAIL_TEXT_ARGUMENT.get(name);
    methods[name] =
      textAt === undefined
        ? (...args) => sendTo(powers, name, args)
        : (...args) => sendTo(powers, name, args.map((arg, index) => (index === textAt ? redactTexts(arg, redact) : arg)));
  }
  return Far('RedactedMailGuestPowers', methods) as unknown as GuestPowers;
};
harden(redactOutgoingMail);
