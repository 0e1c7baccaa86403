/**
 * The few React functions the `useChat` page calls: the project has no `@types/react` (React is
 * a test-only dependency for that one page).
 */
declare module 'react' {
  export function createElement(type: unknown, props: unknown, ...children: unknown[]): unknown;
  export function useEffect(effect: () => void): void;
}
declare module 'react-dom/client' {
  export function createRoot(container: Element): { render(node: unknown): void; unmount(): void };
}
