/**
 * The page bundle of the `useChat` browser test: `@ai-sdk/react`'s `useChat` in a React root,
 * with `DefaultChatTransport` pointed at a handler on another origin. Node drives it: mount (with
 * initial messages, `resume: true`), send, approve, and read what the hook holds.
 * @module
 */
import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { createElement, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { exposeToHarness } from './page-runtime.js';

type Hook = ReturnType<typeof useChat>;
let hook: Hook | null = null;
const errors: string[] = [];
const originalError = console.error.bind(console);
console.error = (...args: unknown[]) => {
  errors.push(args.map(String).join(' '));
  originalError(...args);
};

function ChatView(props: { api: string; chatId: string; token: string; initial: UIMessage[] }) {
  const chat = useChat({
    id: props.chatId,
    messages: props.initial,
    resume: true,
    transport: new DefaultChatTransport({
      api: props.api,
      headers: { authorization: `Bearer ${props.token}` },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onError: (error) => void errors.push(`${error.name}: ${error.message}`),
  });
  useEffect(() => {
    hook = chat;
  });
  return createElement(
    'ul',
    null,
    chat.messages.map((message) => createElement('li', { key: message.id }, message.role)),
  );
}

exposeToHarness({
  /** Mounts the chat with the messages the server has for it. */
  async mount(api: string, chatId: string, token: string) {
    const response = await fetch(`${api}/${chatId}/messages`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const initial = (await response.json()) as UIMessage[];
    const root = document.createElement('div');
    document.body.append(root);
    createRoot(root).render(createElement(ChatView, { api, chatId, token, initial }));
    for (let i = 0; i < 500 && hook === null; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    return initial.length;
  },
  async send(text: string) {
    void hook!.sendMessage({ text });
  },
  async approve(id: string) {
    void hook!.addToolApprovalResponse({ id, approved: true });
  },
  /** What the hook holds now (as JSON), and every error the page saw. */
  async state() {
    return {
      status: hook!.status,
      messages: JSON.parse(JSON.stringify(hook!.messages)) as UIMessage[],
      errors,
    };
  },
});
