// runCommand: exit codes and stderr reported, stdin closed, the root as
// working directory, a timeout that kills the whole process group, and a
// cap on output however much the command prints.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { E } from '@endo/far';
import { make as makeRunCommand } from '../tools/run-command.js';
import { tempDirs } from './support/temp-dirs.js';
import { killSurvivors, readPids, stillRunningAfter } from './support/processes.js';

const tempDir = tempDirs('fae-run-');

const setup = () => {
  const root = tempDir();
  const runCommand = makeRunCommand(undefined, undefined, harden({ env: { FAE_CWD: root } }));
  return { root, runCommand };
};


test('runCommand reports the exit code, stdout and stderr, in the root', async t => {
  const { root, runCommand } = setup();
  t.is(
    await E(runCommand).execute({ command: 'pwd; echo oops >&2; exit 3' }),
    `exit code: 3\nstdout:\n${root}\n\nstderr:\noops\n`,
  );
  t.is(
    await E(runCommand).execute({ command: 'true' }),
    'exit code: 0\nstdout: (empty)\nstderr: (empty)',
  );
});

test('runCommand closes stdin, so a command reading it does not hang', async t => {
  const { runCommand } = setup();
  t.is(
    await E(runCommand).execute({ command: 'cat; echo done' }),
    'exit code: 0\nstdout:\ndone\n\nstderr: (empty)',
  );
});

test('runCommand stops a command that runs too long and kills its process group', async t => {
  const { root, runCommand } = setup();
  const result = await E(runCommand).execute({
    command: 'sleep 60 & echo $! > child.pid; echo started; wait',
    timeout: 500,
  });
  t.true(
    result.startsWith('timed out after 500 ms: the command and its process group were killed\n'),
    result,
  );
  t.true(result.includes('stdout:\nstarted\n'), result);
  // The background sleep belonged to the group: it must be gone too.
  const pids = readPids(path.join(root, 'child.pid'));
  t.teardown(() => killSurvivors(pids));
  t.deepEqual(await stillRunningAfter(pids), [], 'the background child is gone');
});

test('runCommand offers cancellation: a cancelled call stops the command and its whole process group', async t => {
  const { root, runCommand } = setup();
  const call = E(runCommand).execute(
    { command: 'echo $$ > pids; sleep 1000 & echo $! >> pids; echo started; wait' },
    'call-1',
  );
  const pidFile = path.join(root, 'pids');
  while (!fs.existsSync(pidFile) || readPids(pidFile).length < 2) await delay(20);
  const pids = readPids(pidFile);
  t.teardown(() => killSurvivors(pids));
  await E(runCommand).cancel('call-1');
  const result = await call;
  t.true(result.startsWith('cancelled by the caller: the command and its process group were stopped\n'), result);
  t.true(result.includes('stdout:\nstarted\n'), result);
  t.deepEqual(await stillRunningAfter(pids), [], 'the shell and its child are gone');
  // A call that is over, or an id never given, cancels nothing.
  await E(runCommand).cancel('call-1');
  await E(runCommand).cancel('no-such-call');
  t.is(await E(runCommand).execute({ command: 'echo still here' }, 'call-1'), 'exit code: 0\nstdout:\nstill here\n\nstderr: (empty)');
});

test('runCommand kills, after a grace, what ignores the request to stop', async t => {
  const { root, runCommand } = setup();
  // An ignored SIGTERM is inherited: neither the shell nor its child heeds it.
  const call = E(runCommand).execute(
    { command: "trap '' TERM; echo $$ > pids; sleep 1000 & echo $! >> pids; wait" },
    'stubborn',
  );
  const pidFile = path.join(root, 'pids');
  while (!fs.existsSync(pidFile) || readPids(pidFile).length < 2) await delay(20);
  const pids = readPids(pidFile);
  t.teardown(() => killSurvivors(pids));
  await E(runCommand).cancel('stubborn');
  t.regex(await call, /^cancelled by the caller/);
  t.deepEqual(await stillRunningAfter(pids), [], 'SIGKILL ended them');
});

test('runCommand caps a huge output, keeping its start and its end', async t => {
  const { runCommand } = setup();
  const result = await E(runCommand).execute({
    command: "head -c 300000 /dev/zero | tr '\\000' a; echo; echo THE-END",
  });
  t.true(result.length < 50_500, `result is ${result.length} characters`);
  t.true(
    result.startsWith(
      'exit code: 0\nstdout (300009 characters in all, cut to 50000 together):\naaaa',
    ),
    result.slice(0, 200),
  );
  t.regex(result, /\n\[… 250009 characters omitted …\]\na+\nTHE-END\n\nstderr: \(empty\)$/);
});

test('runCommand keeps room for stderr when stdout is huge', async t => {
  const { runCommand } = setup();
  const result = await E(runCommand).execute({
    command: "head -c 100000 /dev/zero | tr '\\000' o; echo important >&2",
  });
  t.true(result.endsWith('stderr:\nimportant\n'), result.slice(-200));
  t.true(result.length < 50_500);
});

test('runCommand lowers a timeout above the ceiling and says so', async t => {
  const { runCommand } = setup();
  const result = await E(runCommand).execute({ command: 'echo ok', timeout: 3_600_000 });
  t.is(
    result,
    'note: the timeout was lowered from 3600000 ms to the ceiling of 600000 ms\nexit code: 0\nstdout:\nok\n\nstderr: (empty)',
  );
});

test('runCommand refuses bad arguments clearly', async t => {
  const { runCommand } = setup();
  await t.throwsAsync(E(runCommand).execute({}), {
    message: /^runCommand: argument "command" is required/,
  });
  await t.throwsAsync(E(runCommand).execute({ command: 'ls', timeout: '5s' }), {
    message: 'runCommand: argument "timeout" must be a number, not "5s"',
  });
  await t.throwsAsync(E(runCommand).execute({ command: 'ls', timeout: 0 }), {
    message: 'runCommand: "timeout" must be a positive number of milliseconds, not 0',
  });
  await t.throwsAsync(E(runCommand).execute({ command: '   ' }), {
    message: 'runCommand: "command" is empty; give a shell command to run',
  });
});

test("runCommand's help says plainly that it is a shell with the worker's authority", async t => {
  const { runCommand } = setup();
  const help = await E(runCommand).help();
  t.true(help.includes("This is a shell with the worker's full authority"), help);
  t.true(help.includes('not a boundary'), help);
  const unrooted = makeRunCommand(undefined, undefined, harden({ env: {} }));
  t.true((await E(unrooted).help()).includes('FAE_CWD was not set'));
});
