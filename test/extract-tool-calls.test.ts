import test from 'ava';
import { extractToolCallsFromContent, stripThinkBlocks } from '../src/toolbox/extract-tool-calls.js';

const ids = () => {
  let n = 0;
  return () => `id${(n += 1)}`;
};

test('a <tool_call> block becomes a structured call and leaves the content', t => {
  const { content, toolCalls } = extractToolCallsFromContent(
    'Let me check.\n<tool_call>{"name": "list", "arguments": {"path": "tools"}}</tool_call>',
    ids(),
  );
  t.is(content, 'Let me check.');
  t.deepEqual(toolCalls, [
    { id: 'id1', type: 'function', function: { name: 'list', arguments: '{"path":"tools"}' } },
  ]);
});

test('several blocks give several calls with distinct ids', t => {
  const { toolCalls } = extractToolCallsFromContent(
    '<tool_call>{"name":"a","arguments":{}}</tool_call><tool_call>{"name":"b","arguments":{"x":1}}</tool_call>',
  );
  t.deepEqual(toolCalls.map(c => c.function.name), ['a', 'b']);
  t.not(toolCalls[0].id, toolCalls[1].id);
});

test('think blocks are stripped whether or not a call was embedded', t => {
  t.is(stripThinkBlocks('<think>plan things</think>The answer is 4.'), 'The answer is 4.');
  t.is(extractToolCallsFromContent('<think>hmm</think>Done.').content, 'Done.');
  t.is(stripThinkBlocks('Answer<think>unfinished reasoning'), 'Answer');
  t.is(stripThinkBlocks('reasoning leaked</think>Answer'), 'Answer');
});

test('the fallback parser for invalid JSON is not greedy', t => {
  const { toolCalls } = extractToolCallsFromContent(
    '<tool_call>{"name": "greet", "arguments": {"name": "Ada"}, oops}</tool_call> and later {"unrelated": true}',
    ids(),
  );
  t.is(toolCalls.length, 1);
  t.is(toolCalls[0].function.name, 'greet');
  t.is(toolCalls[0].function.arguments, '{"name": "Ada"}');
});

test('string arguments are kept verbatim, so invalid JSON is reported later', t => {
  const { toolCalls } = extractToolCallsFromContent(
    '<tool_call>{"name": "math", "arguments": "{a: 1"}</tool_call>',
    ids(),
  );
  t.is(toolCalls[0].function.arguments, '{a: 1');
});

test('a block that names no tool stays in the content', t => {
  const { content, toolCalls } = extractToolCallsFromContent('<tool_call>{"nothing": 1}</tool_call>');
  t.is(toolCalls.length, 0);
  t.true(content.includes('<tool_call>'));
});
