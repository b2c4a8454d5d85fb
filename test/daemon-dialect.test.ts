import test from 'ava';
import { Far } from '@endo/far';
import {
  detectDialect,
  dialectFromMethodNames,
  formulaIdOf,
  specialNames,
} from '../src/daemon/dialect.js';

const NUMBER = 'a'.repeat(64);
const NODE = 'b'.repeat(64);

test('method names tell the three generations apart', t => {
  t.is(dialectFromMethodNames(['help', 'write', 'send']), 'feb');
  t.is(dialectFromMethodNames(['help', 'requestEvaluation']), 'feb');
  t.is(dialectFromMethodNames(['storeIdentifier', 'send']), 'may');
  t.is(dialectFromMethodNames(['storeIdentifier', 'editMessage']), 'aug');
  t.throws(() => dialectFromMethodNames(['help']), { message: /Cannot tell which Endo daemon/ });
});

test('detectDialect asks the agent for its method names only', async t => {
  const agent = Far('agent', { storeIdentifier: () => {}, editMessage: () => {} });
  t.is(await detectDialect(agent), 'aug');
});

test('special names follow the dialect', t => {
  t.is(specialNames('feb').host, 'HOST');
  t.is(specialNames('may').pins, '@pins');
  t.is(specialNames('aug').self, '@self');
});

test('formulaIdOf reads raw ids and both locator syntaxes, ignoring hints', t => {
  const id = `${NUMBER}:${NODE}`;
  t.is(formulaIdOf(id), id);
  t.is(formulaIdOf(`endo://${NODE}/?id=${NUMBER}&type=handle`), id);
  t.is(formulaIdOf(`endo://${NODE}/?id=${NUMBER}&type=guest&at=tcp%3A1.2.3.4`), id);
  t.is(formulaIdOf(`endo://${NODE}/${NUMBER}?type=handle`), id);
  t.is(formulaIdOf(`endo://${NODE}/${NUMBER}@somehint@other?type=handle`), id);
  t.is(formulaIdOf('HOST'), undefined);
  t.is(formulaIdOf('endo://not a url'), undefined);
  t.is(formulaIdOf(`endo://${NODE}/?type=handle`), undefined);
});
