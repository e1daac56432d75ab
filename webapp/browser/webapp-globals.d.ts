/** What the web app's page script (app.ts) offers the card and quiz script (knowledge.ts). */
interface CareflowAppFrame {
  type: string;
  [k: string]: unknown;
}

/** A card or a quiz in the app's one-thing-at-a-time queue: it draws itself on its screen. */
interface CareflowExtraItem {
  id: string;
  screen: "card" | "quiz";
  show(): void;
}

interface CareflowApp {
  onFrame(type: string, fn: (f: CareflowAppFrame) => void): void;
  enqueue(item: CareflowExtraItem): void;
  redraw(id: string): void;
  finish(id: string): void;
  isShowing(id: string): boolean;
  send(frame: CareflowAppFrame): void;
  report: { shown: string[]; [k: string]: unknown };
}
