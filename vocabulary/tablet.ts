/** What the senior's tablet is sent: frames and announcements. */

export interface WebAppFrame {
  type: string;
  [k: string]: unknown;
}

/** Something to say in the web app (the `announcement` channel). */
export interface AnnounceRequest {
  text: string;
  /** `stream`: PCM frames while the speech is made; `file`: a link to a stored clip. */
  mode: "stream" | "file";
  voice?: string;
  language?: string;
  model?: string;
  speed?: number;
}

export interface Announced {
  mode: "stream" | "file";
  /** Web app clients that were sent it. */
  clients: number;
  /** Audio bytes sent (PCM) or stored (the clip). */
  bytes: number;
  sample_rate?: number;
  /** File mode: the clip's signed URL. */
  url?: string;
}

/** Why the web app's channels could not deliver: nobody is there to see or hear it. */
export const NO_WEB_APP = "no tablet has the care app open";
