/**
 * The modules the docs-example pages import: each is a ```tsx block of the documentation, served
 * to the page bundle by the test's Vite plugin (see `use-chat.docs-example.browser.test.ts`).
 */
declare module 'docs-example:use-chat' {
  /** The `ChatPage` of `docs/use-chat.md` ("A React page"). */
  export function ChatPage(props: { chatId: string; token: string }): unknown;
}
