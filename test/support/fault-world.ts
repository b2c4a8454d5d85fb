// One fae in a local daemon for a fault-matrix case, with the checks every
// case ends with (issue 14): the agent keeps serving (a last message still
// gets an answer), every message the host sent got exactly one answer (none
// twice, none lost), and the canary secret appears in no mail, no log line
// and no request an LLM server received.
import { E } from '@endo/far';
import type { ExecutionContext } from 'ava';
import { startFaeInDaemon, type FaeHarnessOptions, type Far } from './fae-harness.js';
import { formulaIdOf } from '../../src/daemon/dialect.js';
import { messageText, nextMessage, specialNames, type MessageRecord } from './daemon.js';

const READY = 'Fae agent ready.';

export interface World {
  readonly host: Far;
  readonly fae: Far;
  readonly controller: Far;
  readonly daemon: Awaited<ReturnType<typeof startFaeInDaemon>>['daemon'];
  readonly logs: string[];
  /** Mails fae from the host; resolves once the host has sent it. A long text goes as several strings. */
  send(text: string, edgeNames?: string[], petNames?: string[]): Promise<void>;
  /** The text of fae's next message to the host (the ready message skipped). */
  nextAnswer(timeoutMs?: number): Promise<string>;
  /** send, then nextAnswer. */
  ask(text: string): Promise<string>;
  /** The texts of fae's answers so far (the ready message left out), once there are `count`. */
  answers(count: number, timeoutMs?: number): Promise<string[]>;
}

export const startWorld = async (t: ExecutionContext, options: FaeHarnessOptions): Promise<World> => {
  const started = await startFaeInDaemon(options);
  const { host, fae, controller, daemon, logs } = started;
  t.teardown(() => daemon.stop());
  await E(controller).whenStarted();
  const faeId: string = await E(host).identify('fae');
  // identify gives raw ids; `from` is a raw id on February and a locator later.
  const fromFae = (m: MessageRecord) => formulaIdOf(m.from) === faeId;
  let lastSeen = -1n;
  const nextAnswer = async (timeoutMs = 30_000): Promise<string> => {
    const record: MessageRecord = await nextMessage(
      host,
      r => r.number > lastSeen && fromFae(r) && !messageText(r).startsWith(READY),
      timeoutMs,
    );
    lastSeen = record.number;
    return messageText(record);
  };
  const send = async (text: string, edgeNames: string[] = [], petNames: string[] = []) => {
    // The daemon carries strings of up to 100,000 characters.
    const parts = text.length === 0 ? [''] : (text.match(/[\s\S]{1,100000}/g) ?? []);
    const strings = edgeNames.length === 0 ? parts : [text, ...edgeNames.map(() => ' ')];
    await E(host).send('fae', harden(strings), harden(edgeNames), harden(petNames));
  };
  // Not hardened: logs keeps growing.
  return {
    host,
    fae,
    controller,
    daemon,
    logs,
    send,
    nextAnswer,
    ask: async (text: string) => {
      await send(text);
      return nextAnswer();
    },
    answers: async (count: number, timeoutMs = 40_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // Polling the inbox: one listMessages per look, not a replay per answer.
        const mail: MessageRecord[] = await E(host).listMessages();
        const answers = mail.filter(m => fromFae(m) && !messageText(m).startsWith(READY));
        if (answers.length >= count || Date.now() > deadline) {
          for (const m of answers) if (m.number > lastSeen) lastSeen = m.number;
          return answers.map(messageText);
        }
        await new Promise(resolve => setTimeout(resolve, 50));
      }
    },
  };
};

export interface Invariants {
  /** A last message, and what its answer must look like. */
  readonly probe?: { readonly text: string; readonly answer: RegExp };
  /** The secret that must appear nowhere. */
  readonly canary: string;
  /** More texts that must not hold it (LLM requests, say). */
  readonly elsewhere?: readonly string[];
}

/** The checks every case ends with. */
export const checkInvariants = async (t: ExecutionContext, world: World, { probe, canary, elsewhere = [] }: Invariants) => {
  if (probe !== undefined) {
    t.regex(await world.ask(probe.text), probe.answer, 'fae keeps serving');
  }
  const [faeId, hostId] = await Promise.all([
    E(world.host).identify('fae'),
    E(world.host).identify(specialNames.self),
  ]);
  const mail: MessageRecord[] = await E(world.host).listMessages();
  // Raw ids on February, locators later: compare the ids they name.
  const asked = mail.filter(m => formulaIdOf(m.from) === hostId && formulaIdOf(m.to) === faeId);
  const answers = mail.filter(m => formulaIdOf(m.from) === faeId && !messageText(m).startsWith(READY));
  t.is(answers.length, asked.length, 'every message answered once: none twice, none lost');
  const replyTos = answers.flatMap(m => (m.replyTo === undefined ? [] : [m.replyTo]));
  t.is(new Set(replyTos).size, replyTos.length, 'no message answered twice');
  const everything = [...mail.map(messageText), ...world.logs, ...elsewhere];
  const leaks = everything.filter(text => text.includes(canary));
  t.deepEqual(leaks, [], 'the secret appears nowhere');
};
