/**
 * Lays out the demo and wires its views to the controller: header, sidebar, chat, composer,
 * status bar, retry banner, plugin activity, settings.
 * @module
 */
import { of, switchMap } from 'rxjs';
import type { IndexedDbMemoryStorage, IndexedDbSessionStorage } from 'youyou-agent';
import { ChatController } from './agent/chat-controller.js';
import type { Conversation } from 'youyou-agent';
import { SettingsDialog } from './settings/settings-dialog.js';
import {
  endpointLabel,
  loadEndpointSettings,
  runsOnServer,
  saveEndpointSettings,
} from './settings/settings.js';
import { TRIP_PROMPT, TripPlanSchema } from './parts/trip-plan.js';
import { ActivityPanel } from './ui/activity-panel.js';
import { APPROVAL_DECISION_EVENT, type ApprovalDecisionDetail } from './ui/items/approval-buttons.js';
import { TripCard } from './ui/trip-card.js';
import { ChatView } from './ui/chat-view.js';
import { Composer } from './ui/composer.js';
import { h } from './ui/dom.js';
import { ErrorBanner } from './ui/error-banner.js';
import { Header } from './ui/header.js';
import { InspectToggle } from './ui/inspect-toggle.js';
import { PhonePanels } from './ui/phone-panels.js';
import { RetryBanner } from './ui/retry-banner.js';
import { SessionBanner } from './ui/session-banner.js';
import { Sidebar } from './ui/sidebar.js';
import { StatusBar } from './ui/status-bar.js';

export function startDemo(
  root: HTMLElement,
  storages: { sessions: IndexedDbSessionStorage; memories: IndexedDbMemoryStorage },
): ChatController {
  const controller = new ChatController({ settings: loadEndpointSettings(), ...storages });

  const chat = new ChatView();
  const composer = new Composer({
    send: (text) => void controller.send(text),
    stop: () => controller.stop(),
  });
  const status = new StatusBar();
  const trip = new TripCard(
    () => void controller.send(TRIP_PROMPT, { output: { schema: TripPlanSchema, name: 'trip_plan' } }),
  );
  controller.structuredTurns.subscribe((turn) => trip.follow(turn));
  const retry = new RetryBanner();
  const activity = new ActivityPanel();
  const errors = new ErrorBanner(() => controller.dismissError());
  const sessionBanner = new SessionBanner({
    continueTurn: () => void controller.continueInterrupted(),
    discardTurn: () => void controller.discardInterrupted(),
    takeOver: () => void controller.takeOver(),
  });
  const settings = new SettingsDialog((next) => void controller.applySettings(saveEndpointSettings(next)));
  const inspect = new InspectToggle((observer) => controller.setInspector(observer));
  const panels = new PhonePanels();
  const header = new Header({
    inspect: inspect.element,
    openSettings: () => {
      panels.close();
      settings.open(controller.settings);
    },
    panelToggles: {
      sessions: panels.toggle('sessions', 'Sessions'),
      activity: panels.toggle('activity', 'Activity'),
    },
  });
  // The current agent's sessions: this browser's, or the demo server's in server mode. Opening
  // one (or a new chat) closes the drawer, so the chat shows at once on a phone.
  const sidebar = new Sidebar(controller.sessions, {
    open: (summary) => {
      panels.close();
      void controller.open(summary);
    },
    delete: (summary) => void controller.delete(summary.id),
    newChat: () => {
      panels.close();
      void controller.newChat();
    },
  });
  sidebar.element.prepend(panels.closeButton('sessions'));
  activity.element.prepend(panels.closeButton('activity'));

  root.replaceChildren(
    header.element,
    h(
      'div',
      { class: 'layout' },
      sidebar.element,
      h(
        'main',
        { class: 'main' },
        errors.element,
        sessionBanner.element,
        chat.element,
        retry.element,
        trip.element,
        composer.element,
        status.element,
      ),
      activity.element,
      panels.backdrop,
    ),
    settings.element,
  );

  let conversation: Conversation | null = null;
  let shownSession: string | null = null;
  controller.state.subscribe((state) => {
    header.update(state, endpointLabel(controller.settings));
    composer.update(state);
    trip.setEnabled(state.phase === 'ready');
    errors.update(state.error);
    sessionBanner.update(state);
    sidebar.setActive(state.sessionId);
    document.body.dataset['phase'] = state.phase;
    if (state.sessionId !== shownSession) {
      shownSession = state.sessionId;
      chat.clearTurnSummaries();
    }
  });
  controller.conversation.subscribe((next) => {
    conversation = next;
    chat.show(next);
    // The budget is an in-page agent's setting: the server's agents have none.
    status.update(next, runsOnServer(controller.settings) ? 0 : controller.settings.sessionBudgetUsd);
    retry.update(next);
  });
  chat.element.addEventListener(APPROVAL_DECISION_EVENT, (event) => {
    const { callId, choice } = (event as CustomEvent<ApprovalDecisionDetail>).detail;
    controller.decide(callId, choice);
  });
  controller.turns.subscribe((summary) => chat.addTurnSummary(summary));
  controller.sessionsChanged.subscribe(() => void sidebar.reload());
  controller.hooks
    .pipe(switchMap((hooks) => hooks?.activity ?? of([])))
    .subscribe((entries) => activity.update(entries));
  controller.retries.subscribe((scheduled) => conversation && retry.scheduled(scheduled, conversation));

  void sidebar.reload();
  composer.focus();
  return controller;
}
