/**
 * The notes tool: `mutating`, so a batch holding it runs serially, in call order. Adding and
 * clearing notes asks the user first (the card shows Allow / Deny / Always); listing does not.
 * Where the notes live is the caller's choice: the page keeps them in this browser's
 * `localStorage` (apart from the sessions); the demo server keeps each user's in its memory.
 * @module
 */
import { defineTool } from 'youyou-agent';
import * as z from 'zod/mini';

const NOTES_KEY = 'youyou-demo:notes';

/** Where a notes tool reads and writes its notes (oldest first). */
export interface NotesStore {
  read(): string[];
  write(notes: readonly string[]): void;
}

/** The saved notes, oldest first. */
export function readNotes(storage: Storage = localStorage): string[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(NOTES_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/** This browser's notes, in `localStorage` (read when a call runs, so the page's global is not touched on import). */
const browserNotes: NotesStore = {
  read: () => readNotes(),
  write: (notes) => {
    if (notes.length === 0) localStorage.removeItem(NOTES_KEY);
    else localStorage.setItem(NOTES_KEY, JSON.stringify(notes));
  },
};

/**
 * A notes tool over `store`.
 * @example
 * const notes: string[] = [];
 * createNotesTool({ read: () => [...notes], write: (next) => notes.splice(0, notes.length, ...next) });
 */
export function createNotesTool(store: NotesStore) {
  return defineTool({
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
      const notes = store.read();
      switch (action) {
        case 'add': {
          if (!text?.trim()) return { content: 'Nothing to add: "text" is empty.', isError: true };
          notes.push(text.trim());
          store.write(notes);
          return `Saved note ${notes.length}: ${text.trim()}`;
        }
        case 'list':
          return notes.length === 0 ? 'No notes yet.' : notes.map((n, i) => `${i + 1}. ${n}`).join('\n');
        case 'clear':
          store.write([]);
          return `Deleted ${notes.length} note(s).`;
      }
    },
  });
}

/** The page's notes tool (notes in this browser's `localStorage`). */
export const notesTool = createNotesTool(browserNotes);
