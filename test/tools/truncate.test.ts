import { describe, it, expect } from 'vitest';
import { MAX_TOOL_OUTPUT_BYTES, TRUNCATION_MARKER, truncateToolOutput } from '../../src/tools/truncate.js';

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** Splits a truncated output into the kept part and checks the marker is there exactly once, at the end. */
function keptPart(output: string): string {
  expect(output.endsWith(TRUNCATION_MARKER)).toBe(true);
  return output.slice(0, -TRUNCATION_MARKER.length);
}

describe('truncateToolOutput', () => {
  it('returns output within the limit unchanged, also exactly at the limit', () => {
    expect(truncateToolOutput('hello')).toBe('hello');
    const exact = 'a'.repeat(MAX_TOOL_OUTPUT_BYTES);
    expect(truncateToolOutput(exact)).toBe(exact);
    const exactMultiByte = 'a' + '€'.repeat((MAX_TOOL_OUTPUT_BYTES - 1) / 3); // 1 + 3 × 349,525 bytes
    expect(utf8Bytes(exactMultiByte)).toBe(MAX_TOOL_OUTPUT_BYTES);
    expect(truncateToolOutput(exactMultiByte)).toBe(exactMultiByte);
  });

  it('cuts one byte over 1 MiB and appends the fixed marker', () => {
    const output = truncateToolOutput('a'.repeat(1_048_577));
    expect(output).toBe('a'.repeat(1_048_576) + '\n\n[output truncated at 1MB]');
    expect(keptPart(output)).toBe('a'.repeat(MAX_TOOL_OUTPUT_BYTES));
  });

  it('counts UTF-8 bytes, not string length: 600,000 × "é" (1.2 MB) keeps 524,288 of them', () => {
    const content = 'é'.repeat(600_000); // 600,000 code units, 1,200,000 bytes
    const kept = keptPart(truncateToolOutput(content));
    expect(kept).toBe('é'.repeat(MAX_TOOL_OUTPUT_BYTES / 2));
    expect(utf8Bytes(kept)).toBe(MAX_TOOL_OUTPUT_BYTES);
  });

  it('never splits a 3-byte character at the limit', () => {
    // 'ab' + '€'×n: 2 + 3n bytes; the limit falls inside the character after 349,524 euros.
    const kept = keptPart(truncateToolOutput('ab' + '€'.repeat(400_000)));
    expect(kept).toBe('ab' + '€'.repeat(349_524));
    expect(utf8Bytes(kept)).toBe(MAX_TOOL_OUTPUT_BYTES - 2);
  });

  it('never splits a surrogate pair (4-byte emoji) at the limit', () => {
    const kept = keptPart(truncateToolOutput('a' + '😀'.repeat(300_000)));
    // 1 + 4 × 262,143 = 1,048,573 bytes; one more emoji would need 4 more bytes.
    expect(kept).toBe('a' + '😀'.repeat(262_143));
    expect(kept.at(-1)).toBe('😀'.at(-1)); // ends with a low surrogate: the pair is whole
    expect(utf8Bytes(kept)).toBe(1_048_573);
  });
});
