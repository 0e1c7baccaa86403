import { describe, expect, it } from 'vitest';
import {
  MEMORY_EXTRACTION_INPUT_TEMPLATE,
  MEMORY_EXTRACTION_PROMPT,
  renderMemoryExtractionInput,
} from '../../src/prompt/memory-templates.js';
import { MAX_TOOL_CALLS_NOTE } from '../../src/prompt/templates.js';

describe('templates', () => {
  it('asks memory extraction for exactly {"memories":[{"content","tags"?}]}', () => {
    expect(MEMORY_EXTRACTION_PROMPT).toContain('{"memories":[{"content":"...","tags":["..."]}]}');
    expect(MEMORY_EXTRACTION_PROMPT).toContain('{"memories":[]}');
  });

  it('fills the extraction input once, leaving placeholders inside the transcript alone', () => {
    expect(MEMORY_EXTRACTION_INPUT_TEMPLATE).toContain('{{transcript}}');
    const text = renderMemoryExtractionInput({
      transcript: 'user: costs $& and {{existing_memories}}',
      existingMemories: ['The user prefers tabs.'],
    });
    expect(text).toContain('- The user prefers tabs.');
    expect(text).toContain('user: costs $& and {{existing_memories}}');
    expect(renderMemoryExtractionInput({ transcript: 't', existingMemories: [] })).toContain('(none)');
  });

  it('names the limit in the tool-call limit note', () => {
    expect(MAX_TOOL_CALLS_NOTE(50)).toContain('50 tool calls');
  });
});
