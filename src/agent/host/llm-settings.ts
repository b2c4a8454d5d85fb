// fae's LLM settings, changeable from the Endo Chat UI (May and August):
// fae mails its host a form (provider URL, model, token as a secret field,
// maximum tokens) when it was set up without an LLM, and again when the
// host writes /settings. The answer takes effect at once (the provider
// switch), is kept under a sealed name in fae's directory so a restart
// keeps it, and its token is never shown: not as the form's default, not
// in a reply, a log line or status().
//
// Which settings count at a start: those the host last gave in the form,
// unless the caplet's own LLM settings (its env, from setup) have changed
// since, which means the host has set fae up again from a terminal.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import type { Provider } from '../../../providers/types.js';
import { describeProviderConfig, readProviderConfig, type Env } from '../../../providers/config.js';
import { redactUrl } from '../../logging/redact.js';
import { DEFAULT_RETRY_MS, retrying } from '../../daemon/backoff.js';
import type { FormField, FormKind, FormValues, HostForms } from './host-forms.js';
import type { ProviderSwitch } from './provider-switch.js';

/** The sealed name fae keeps the host's settings under. */
export const SETTINGS_NAME = 'llm-settings';

/**
 * The form's description, by the name of the fae that sends it: how the
 * host knows it, and how fae knows it after a restart.
 */
export const settingsDescriptionFor = (name: string) =>
  `${name}'s language model. The token is never shown; left empty, the one in use (if any) stays.`;
harden(settingsDescriptionFor);

/** What forms sent by earlier versions of fae said: their answers still count. */
const EARLIER_DESCRIPTION = "Fae's language model. Leave the token empty to keep the current one; it is never shown.";

/** The settings the form sets, and those whose change (in the env) means a new setup. */
const FORM_NAMES = ['LAL_HOST', 'LAL_MODEL', 'LAL_AUTH_TOKEN', 'LAL_MAX_TOKENS'] as const;
const SETUP_NAMES = [...FORM_NAMES, 'LAL_PROVIDER'] as const;

/**
 * The form's words for the settings it sets, where a text names them as the
 * setup does (LAL_HOST…): the host who set fae up from the form never saw
 * those names. `where` follows each name (where the host changes it).
 */
const FORM_WORDS: readonly (readonly [string, string, boolean])[] = harden([
  ['no LAL_AUTH_TOKEN is set', 'no API token is set', false],
  ['LAL_HOST', 'the provider URL', true],
  ['LAL_MODEL', 'the model', true],
  ['LAL_AUTH_TOKEN', 'the API token', true],
  ['LAL_MAX_TOKENS', 'the maximum tokens per answer', true],
]);

/** `text` with the settings the form sets named as the form names them. */
export const inFormWords = (text: string, where = '') =>
  FORM_WORDS.reduce(
    // A RegExp of its own each time: a hardened one cannot keep its lastIndex.
    (words, [name, formName, placed]) => words.replace(new RegExp(`\\b${name}\\b`, 'g'), placed ? `${formName}${where}` : formName),
    text,
  );
harden(inFormWords);

/** What fae stores: the settings the form gave, and the setup they were given over. */
interface StoredSettings {
  readonly given: Readonly<Record<string, string>>;
  readonly setup: Readonly<Record<string, string>>;
}

const pick = (env: Env, names: readonly string[]) =>
  harden(Object.fromEntries(names.flatMap(name => (env[name] === undefined ? [] : [[name, env[name] as string]]))));

const sameRecord = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  Object.keys(a).length === Object.keys(b).length && Object.keys(a).every(key => a[key] === b[key]);

const isStoredSettings = (value: unknown): value is StoredSettings => {
  const isTexts = (record: unknown) =>
    typeof record === 'object' && record !== null && Object.values(record).every(item => typeof item === 'string');
  return typeof value === 'object' && value !== null && isTexts((value as StoredSettings).given) && isTexts((value as StoredSettings).setup);
};

/** The form, filled in with what fae uses now (the URL as it may be shown, no token). */
const fieldsFor = (env: Env): readonly FormField[] => {
  // Settings fae could not use would have been refused when given; the defaults otherwise.
  const config = readProviderConfig(env);
  return harden([
    { name: 'host', label: 'Provider URL', default: redactUrl(config.host), example: 'https://api.anthropic.com' },
    { name: 'model', label: 'Model', default: config.model },
    { name: 'authToken', label: 'API token', secret: true, default: '' },
    { name: 'maxTokens', label: 'Maximum tokens per answer', default: String(config.maxTokens) },
  ]);
};

/** The env the answer makes of `current`: what was left as it was shown keeps its value. */
const answeredEnv = (current: Env, values: FormValues): Env => {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string).trim() : '');
  const shownHost = current.LAL_HOST === undefined ? undefined : redactUrl(current.LAL_HOST);
  const host = text('host');
  return harden({
    ...current,
    LAL_HOST: host === '' || host === shownHost ? current.LAL_HOST : host,
    LAL_MODEL: text('model') || current.LAL_MODEL,
    LAL_AUTH_TOKEN: text('authToken') || current.LAL_AUTH_TOKEN,
    LAL_MAX_TOKENS: text('maxTokens') || current.LAL_MAX_TOKENS,
  });
};

export interface LlmSettingsOptions {
  /** The fae's name (FAE_NAME), which the form says. */
  readonly name: string;
  readonly env: Env;
  readonly powers: Ref<GuestPowers>;
  readonly logger: Logger;
  readonly providers: ProviderSwitch;
  /** A provider for settings (throws, with a clear message, for bad ones). */
  readonly makeProvider: (env: Env) => Provider;
  /** Told of the secrets of settings fae takes, before anything can show them. */
  readonly learnSecrets: (env: Env) => void;
  readonly tellHost: (text: string) => Promise<void>;
}

export const makeLlmSettings = ({ name, env, powers, logger, providers, makeProvider, learnSecrets, tellHost }: LlmSettingsOptions) => {
  const description = settingsDescriptionFor(name);
  /** The settings in use: the env, with the host's answers over it. */
  let current: Env = env;
  /** Whether the settings in use came from the form (the host knows them by its words). */
  let fromForm = false;
  let forms: HostForms | undefined;

  const store = (next: Env) =>
    E(powers)
      .storeValue(harden({ given: pick(next, FORM_NAMES), setup: pick(env, SETUP_NAMES) }), SETTINGS_NAME)
      .catch(error => logger.warn('settings-not-stored', { error }));

  /** Takes settings; false (and the host is told why) when they cannot be used. */
  const take = async (next: Env, { announce, given }: { announce: boolean; given: boolean }) => {
    learnSecrets(next);
    let provider: Provider;
    try {
      provider = makeProvider(next);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await tellHost(`I kept my settings: ${given ? inFormWords(reason) : reason}. /settings sends the form again.`);
      return false;
    }
    current = next;
    fromForm = given;
    const described = describeProviderConfig(readProviderConfig(next));
    logger.event('settings-changed', { settings: described });
    // Told before a question that waited for the settings can be answered with them.
    if (announce) {
      await tellHost(`Settings changed: I now use the ${described}.`).catch(error =>
        logger.warn('settings-change-untold', { error }),
      );
    }
    providers.use(provider);
    return true;
  };

  const onAnswer = async (values: FormValues) => {
    const next = answeredEnv(current, values);
    if (await take(next, { announce: true, given: true })) await store(next);
  };

  /** Mails the host the form; its answer is taken whenever it comes. */
  const ask = () => {
    if (forms === undefined || !forms.available) return false;
    const { answer } = forms.ask(description, fieldsFor(current));
    answer.then(onAnswer, error => logger.warn('settings-form-failed', { error }));
    return true;
  };

  /** The settings kept from an earlier start, if they still apply. */
  const readStored = async (): Promise<Env | undefined> => {
    const value = await retrying(5, DEFAULT_RETRY_MS, async () =>
      (await E(powers).has(SETTINGS_NAME)) ? E(powers).lookup(SETTINGS_NAME) : undefined,
    ).catch(error => {
      logger.warn('settings-unread', { error });
      return undefined;
    });
    if (!isStoredSettings(value)) return undefined;
    // Set up again from a terminal since: the new setup counts.
    if (!sameRecord(value.setup, pick(env, SETUP_NAMES))) return undefined;
    return harden({ ...env, ...value.given });
  };

  return harden({
    /** At start, before any turn: the settings the host gave in the form, if they still apply. */
    restore: async (hostForms: HostForms) => {
      forms = hostForms;
      const stored = await readStored();
      if (stored !== undefined) await take(stored, { announce: false, given: true });
    },
    /**
     * Then, without an LLM: the form, unless one sent before a restart is
     * still open (its answer is taken as a late one); on a daemon without
     * forms, the defaults (a local Ollama), as before there were forms.
     */
    askIfUnset: async () => {
      if (providers.isSet()) return;
      if (forms === undefined || !forms.available) {
        await take(env, { announce: false, given: false });
      } else if (!(await forms.hasOpenForm(description))) {
        ask();
      }
    },
    /** /settings: the form again, filled in with what fae uses now. */
    ask,
    /**
     * A text for the host that names settings as the setup does (LAL_HOST…),
     * in the form's words while the settings in use came from the form.
     */
    hostWords: (text: string) => (fromForm ? inFormWords(text, ' in /settings') : text),
    /** Late answers (after a restart) to a settings form. */
    kind: harden({ recognizes: (sent: string) => sent === description || sent === EARLIER_DESCRIPTION, onLateAnswer: onAnswer }) as FormKind,
  });
};
harden(makeLlmSettings);
export type LlmSettings = ReturnType<typeof makeLlmSettings>;
