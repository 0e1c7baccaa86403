/**
 * The page bundle of the docs-example browser test: the ```tsx block of `docs/use-chat.md`, as
 * written (the test's Vite plugin serves it as `docs-example:use-chat`), rendered in a React root.
 * Node drives it through its DOM; the page only mounts `<ChatPage>` and reports the errors it saw.
 * @module
 */
import { ChatPage } from 'docs-example:use-chat';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { exposeToHarness } from './page-runtime.js';

const errors: string[] = [];
const originalError = console.error.bind(console);
console.error = (...args: unknown[]) => {
  errors.push(args.map(String).join(' '));
  originalError(...args);
};
addEventListener('error', (event) => void errors.push(`error: ${String(event.message)}`));
addEventListener('unhandledrejection', (event) => void errors.push(`unhandled: ${String(event.reason)}`));

exposeToHarness({
  /** Renders `<ChatPage chatId token />` into the document. */
  async mount(chatId: string, token: string) {
    const root = document.createElement('main');
    document.body.append(root);
    createRoot(root).render(createElement(ChatPage, { chatId, token }));
  },
  /** Every error the page logged or threw. */
  async errors() {
    return errors;
  },
});
