/**
 * With several instances (docs/cluster.md "Events"), what one instance's clients and jobs
 * would have seen had everything run on it: the web app's frames (popups, prompts, cards,
 * alert updates, live tracking frames), the live feed's run events and the bus topics that
 * cross (CROSSES_INSTANCES) go out over the cluster link once, from the instance where they
 * happened, and each other instance hands them to its own clients and opted-in subscribers.
 * Nothing relayed is published again, so nothing is echoed. One instance: nothing is wired.
 */
import type { ClusterLink } from "../../platform/cluster/cluster-link";
import type { Clock } from "../../platform/core/clock";
import { CROSSES_INSTANCES, type BusTopics, type EventBus, type Topic } from "../../platform/core/event-bus";
import type { RestTwin, WebAppFrame, WebAppHub } from "../../platform/ws/webapp-hub";
import type { LiveEvents, PipelineExecutionEvent } from "../../care/core/pipeline/engine/live-events";

/** Each instance says how many web app clients it has this often (and at every change). */
const CLIENTS_EVERY_MS = 5000;
/** An instance silent for this long has no clients any more (it stopped or died). */
const CLIENTS_FORGOTTEN_MS = 3 * CLIENTS_EVERY_MS;

interface FrameMessage {
  frame: WebAppFrame;
  twin: RestTwin | null;
}

/** `/ws`: broadcasts go to every instance's clients; returns how to stop. */
export function fanOutWebApp(hub: WebAppHub, link: ClusterLink, clock: Clock): () => void {
  const counts = new Map<string, { clients: number; until: number }>();
  const remoteClients = (): number => {
    const now = clock.now();
    let n = 0;
    for (const [id, c] of counts) {
      if (c.until > now) n += c.clients;
      else counts.delete(id);
    }
    return n;
  };
  hub.linkPeers({
    send: (frame, twin) => link.publish("webapp.frame", { frame, twin } satisfies FrameMessage),
    sendBinary: (data) => link.publish("webapp.binary", data.toString("base64")),
    clients: remoteClients,
  });
  const tell = () => link.publish("webapp.clients", hub.localSize);
  let cancel = () => {};
  const every = () => {
    tell();
    cancel = clock.at(clock.now() + CLIENTS_EVERY_MS, every);
  };
  const offs = [
    link.subscribe("webapp.frame", (data) => {
      const m = data as FrameMessage;
      hub.deliver(m.frame, m.twin);
    }),
    link.subscribe("webapp.binary", (data) => hub.deliverBinary(Buffer.from(String(data), "base64"))),
    link.subscribe("webapp.clients", (data, from) => counts.set(from, { clients: Number(data) || 0, until: clock.now() + CLIENTS_FORGOTTEN_MS })),
    link.onConnected(tell),
  ];
  hub.onConnect(tell);
  hub.onDisconnect(tell);
  every();
  return () => {
    cancel();
    for (const off of offs) off();
  };
}

/**
 * `/ws/pipeline`: every instance's feed shows the runs of every engine; returns how to stop.
 * An engine builds and sends its run events only while another instance has a feed client: each
 * instance says whether it wants them (`runs.wanted`, at each change, every 5 s and when asked
 * with `runs.ask` by an instance that connects), and one that stops saying so is forgotten
 * after 15 s. With nobody watching, a run costs no instance anything for the others.
 */
export function fanOutRuns(live: LiveEvents, link: ClusterLink, clock: Clock): () => void {
  const wanting = new Map<string, number>();
  let offLocal: (() => void) | null = null;
  const follow = () => {
    const now = clock.now();
    for (const [id, until] of wanting) if (until <= now) wanting.delete(id);
    if (wanting.size > 0 && !offLocal) offLocal = live.subscribe((e) => link.publish("runs", e));
    else if (wanting.size === 0 && offLocal) {
      offLocal();
      offLocal = null;
    }
  };
  const tell = () => link.publish("runs.wanted", live.wantsOtherInstances);
  let cancel = () => {};
  const every = () => {
    tell();
    follow();
    cancel = clock.at(clock.now() + CLIENTS_EVERY_MS, every);
  };
  const offs = [
    link.subscribe("runs", (data) => live.relay(data as PipelineExecutionEvent)),
    link.subscribe("runs.wanted", (data, from) => {
      if (data === true) wanting.set(from, clock.now() + CLIENTS_FORGOTTEN_MS);
      else wanting.delete(from);
      follow();
    }),
    link.subscribe("runs.ask", tell),
    link.onConnected(() => {
      tell();
      link.publish("runs.ask", true);
    }),
    live.onOtherInstancesWanted(tell),
  ];
  every();
  return () => {
    cancel();
    for (const off of offs) off();
    offLocal?.();
    offLocal = null;
  };
}

/** The bus topics that cross instances (CROSSES_INSTANCES); returns how to stop. */
export function fanOutBus(bus: EventBus, link: ClusterLink): () => void {
  const offs: Array<() => void> = [];
  for (const topic of Object.keys(CROSSES_INSTANCES) as Topic[]) {
    if (!CROSSES_INSTANCES[topic]) continue;
    offs.push(bus.subscribe(topic, (payload) => link.publish(`bus.${topic}`, payload)));
    offs.push(link.subscribe(`bus.${topic}`, (data) => bus.relay(topic, data as BusTopics[typeof topic])));
  }
  return () => {
    for (const off of offs) off();
  };
}
