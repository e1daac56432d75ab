/**
 * The Health tab's Backups section (issue 46 §2, docs/backups.md): the last backup in the
 * family's words ("Last backup: today at 03:30, 12.4 MB"), whether it worked, when the next
 * scheduled one is due; for an administrator "Back up now" and the kept backups, each with a
 * download. A caregiver reads the state (`GET /backup-status`); making and downloading a
 * backup are the admin's (`/admin/backups`), as the API's roles say.
 */

interface HpBackupOutcome {
  at: string;
  made_by: string;
  name?: string;
  size_bytes?: number;
  error?: string;
}

interface HpBackupState {
  state: "ok" | "late" | "down";
  detail: string;
  under_way: boolean;
  schedule: string | null;
  next_at: string | null;
  last_ok: HpBackupOutcome | null;
  last_failure: HpBackupOutcome | null;
}

interface HpBackupFile {
  name: string;
  size_bytes: number;
  created_at: string;
  made_by: "scheduled" | "manual" | "command";
  media_objects: number;
}

const HP_MADE_BY: Record<HpBackupFile["made_by"], string> = {
  scheduled: "On schedule",
  manual: "By hand",
  command: "From a terminal",
};
const HP_WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** "today at 03:30", "yesterday at …", "tomorrow at …", else "on Monday 5 January at …", in this browser's time. */
function hpDayAndTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  const midnight = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const days = Math.round((midnight(d) - midnight(new Date())) / 86_400_000);
  const named: Record<number, string> = { [-1]: "yesterday", 0: "today", 1: "tomorrow" };
  if (named[days] !== undefined) return `${named[days]} at ${time}`;
  const sameYear = d.getFullYear() === new Date().getFullYear();
  const date = d.toLocaleDateString(undefined, { weekday: "long", day: "numeric", month: "long", ...(sameYear ? {} : { year: "numeric" }) });
  return `on ${date} at ${time}`;
}

/** A size as a file manager says it; MB of 1024 × 1024 bytes, so it agrees with the health board's MiB. */
function hpSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/** How often the schedule runs, when it is one a family says in words (every day, every Sunday). */
function hpScheduleWords(schedule: string): string {
  const f = schedule.trim().split(/\s+/);
  const atTime = f.length === 5 && /^\d+$/.test(f[0]) && /^\d+$/.test(f[1]) && f[2] === "*" && f[3] === "*";
  if (atTime && f[4] === "*") return "every day";
  if (atTime && /^[0-7]$/.test(f[4])) return `every ${HP_WEEKDAYS[Number(f[4]) % 7]}`;
  return `on the schedule "${schedule}"`;
}

function hpShowBackupState(s: HpBackupState): void {
  const last = hp$("backup-last");
  const ok = s.last_ok;
  last.textContent = ok ? `Last backup: ${hpDayAndTime(ok.at)}${ok.size_bytes !== undefined ? `, ${hpSize(ok.size_bytes)}` : ""}.` : "No backup yet.";
  // Green only while all is well: the line of what went wrong below carries the red.
  last.dataset.colour = s.state === "ok" && ok ? "green" : "";
  const problem = hp$("backup-problem");
  const failure = s.last_failure;
  problem.textContent =
    s.state === "ok"
      ? ""
      : failure
        ? `The backup ${hpDayAndTime(failure.at)} failed: ${failure.error ?? "no reason was given"}.`
        : `Needs a look: ${s.detail}.`;
  hp$("backup-under-way").textContent = s.under_way ? "A backup is being made now." : "";
  hp$("backup-schedule").textContent = s.schedule
    ? `Backups are made ${hpScheduleWords(s.schedule)}${s.next_at ? `; the next is ${hpDayAndTime(s.next_at)}` : ""}.`
    : "No backups are scheduled: one is made only when an administrator asks for it.";
}

function hpShowBackupList(backups: readonly HpBackupFile[]): void {
  const tbody = hp$("backups").querySelector("tbody")!;
  if (backups.length === 0) return hpEmptyRow(tbody, 4, "No backup is kept yet.");
  tbody.replaceChildren(
    ...backups.map((b) => {
      const when = hpDayAndTime(b.created_at);
      const link = hpEl(
        "a",
        { href: `/api/v1/admin/backups/${encodeURIComponent(b.name)}`, download: b.name },
        "Download",
        hpEl("span", { class: "visually-hidden" }, ` the backup made ${when}`),
      );
      link.addEventListener("click", (e) => {
        e.preventDefault();
        void hpTry("Could not download the backup", () => hpDownloadBackup(b.name));
      });
      return hpEl(
        "tr",
        { "data-backup": b.name },
        hpEl("td", { class: "nowrap" }, when.charAt(0).toUpperCase() + when.slice(1)),
        hpEl("td", { class: "nowrap" }, hpSize(b.size_bytes)),
        hpEl("td", {}, HP_MADE_BY[b.made_by] ?? b.made_by),
        hpEl("td", {}, link),
      );
    }),
  );
}

/**
 * Downloads with the key in its header, never in the address (where the browser's history and
 * a proxy's log would keep the admin key): the file is fetched, then handed to the browser.
 */
async function hpDownloadBackup(name: string): Promise<void> {
  const res = await fetch(`/api/v1/admin/backups/${encodeURIComponent(name)}`, { headers: { "X-API-Key": hpKey ?? "" } });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { detail?: string } | null;
    throw new HpError(res.status, body?.detail ?? `${res.status} ${res.statusText}`);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = hpEl("a", { href: url, download: name, hidden: "" });
  document.body.append(a);
  a.click();
  a.remove();
  // Long enough for the browser to have taken the file.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The state for everyone, the list for an administrator; a refusal said in the section, not over the parts. */
async function hpLoadBackups(): Promise<void> {
  try {
    if (hpIsAdmin) {
      const all = await hpApi<HpBackupState & { backups: HpBackupFile[] }>("GET", "/admin/backups");
      hpShowBackupState(all);
      hpShowBackupList(all.backups);
    } else hpShowBackupState(await hpApi<HpBackupState>("GET", "/backup-status"));
  } catch (err) {
    hp$("backup-last").textContent = `Could not read the backups: ${err instanceof Error ? err.message : String(err)}`;
    hp$("backup-last").dataset.colour = "red";
  }
}

async function hpBackUpNow(button: HTMLButtonElement): Promise<void> {
  const status = hp$("backup-now-status");
  const error = hp$("backup-now-error");
  button.disabled = true;
  error.textContent = "";
  status.textContent = "Backing up… this takes a minute or two with many photos.";
  try {
    const made = await hpApi<HpBackupFile>("POST", "/admin/backups", {});
    status.textContent = `Backed up: ${hpSize(made.size_bytes)}.`;
  } catch (err) {
    status.textContent = "";
    error.textContent = `The backup was not made: ${err instanceof Error ? err.message.replace(/^the backup failed: /, "") : String(err)}`;
  } finally {
    button.disabled = false;
    // Either way the section and the board say what is true now.
    await hpLoadBackups();
    await hpTry("Could not read the parts", hpLoadHealth);
  }
}

function hpBackupsInit(): void {
  const button = hp$<HTMLButtonElement>("backup-now");
  button.addEventListener("click", () => void hpBackUpNow(button));
}
