// Example tool caplet: the current date and time, optionally in an IANA
// timezone. Under SES the locale methods (Date#toLocaleString) ignore their
// options, so the zone is applied with Intl.DateTimeFormat, which keeps them.
import { makeFaeTool } from '../src/tool-kit/make-fae-tool.js';

const formatIn = (now: Date, timeZone: string | undefined) => {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      dateStyle: 'full',
      timeStyle: 'long',
    });
  } catch {
    throw Error(
      `unknown timezone ${JSON.stringify(timeZone)}; use an IANA name such as "UTC", "Europe/Paris" or "America/New_York"`,
    );
  }
  const zone = format.resolvedOptions().timeZone;
  return `${format.format(now)} (${zone}); UTC ${now.toISOString()}`;
};

export const make = (_powers?: unknown, _context?: unknown, _options?: unknown) =>
  makeFaeTool({
    name: 'timestamp',
    description: 'Get the current date and time. Optionally specify a timezone.',
    parameters: {
      timezone: {
        type: 'string',
        description:
          'IANA timezone (e.g. "America/New_York", "UTC"). Defaults to the system timezone.',
      },
    },
    required: [],
    help: "Tells the current date and time, in the worker's timezone or a given IANA timezone. Reads only the clock.",
    execute: ({ timezone }) => formatIn(new Date(), timezone),
  });
harden(make);
