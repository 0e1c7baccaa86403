/**
 * The notes tool: `mutating`, so a batch holding it runs serially, in call order. Adding and
 * clearing notes asks the user first (the card shows Allow / Deny / Always); listing does not.
 * The notes are kept in this browser's `localStorage`, apart from the sessions.
 * @module
 */
import { defineTool } from 'youyou-agent';
import * as z from 'zod/mini';

const NOTES_KEY = 'youyou-demo:notes';

/** The saved notes, oldest first. */
export function readNotes(storage: Storage = localStorage): string[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(NOTES_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

export const notesTool = defineTool({
  name: 'notes',
  description:
    'Keeps short notes for the user across sessions: "add" one (with text), "list" them, or "clear" them all.',
  mutating: true,
  needsApproval: ({ arguments: { action } }) => action !== 'list',
  parameters: z.object({
    action: z.enum(['add', 'list', 'clear']),
    text: z.optional(z.string().check(z.describe('The note to add (for "add")'))),
  }),
  execute: ({ arguments: { action, text } }) => {
    const notes = readNotes();
    switch (action) {
      case 'add': {
        if (!text?.trim()) return { content: 'Nothing to add: "text" is empty.', isError: true };
        notes.push(text.trim());
        localStorage.setItem(NOTES_KEY, JSON.stringify(notes));
        return `Saved note ${notes.length}: ${text.trim()}`;
      }
      case 'list':
        return notes.length === 0 ? 'No notes yet.' : notes.map((n, i) => `${i + 1}. ${n}`).join('\n');
      case 'clear':
        localStorage.removeItem(NOTES_KEY);
        return `Deleted ${notes.length} note(s).`;
    }
  },
});
