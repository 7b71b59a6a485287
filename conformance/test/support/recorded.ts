/**
 * Recorded deployments: the golden HTTP fixtures (conformance/fixtures/http).
 *
 * `good.json` is a run of the request-deterministic groups against our real
 * server; each `bad/<variant>.json` holds only the responses a broken variant
 * answers differently, and the checks that must fail on it. A replay serves the
 * recording through a fetch function, so the checks run offline, byte for byte
 * on what was recorded, at the recorded time.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import type { Exchange } from "../../src/Exchange.ts"

/** The groups whose requests do not depend on randomness (keys, signatures) and can be replayed. */
export const OFFLINE_GROUPS = ["discovery", "openapi", "http", "feed", "etag", "route", "responses"] as const

/** Request headers that select a response. */
const SELECTING = [
  "if-none-match",
  "accept-encoding",
  "last-event-id",
  "idempotency-key",
  "access-control-request-method"
]

/** One recorded response. */
export interface RecordedEntry {
  /** method, path with query, selecting headers, body hash. */
  readonly key: string
  readonly status: number
  readonly headers: Record<string, string>
  /** sha256 of the body, in `bodies`. */
  readonly body: string
}

/** A recording. */
export interface Recording {
  readonly description: string
  /** The origin the deployment had (its documents name it). */
  readonly origin: string
  /** Unix ms of the recording: replays run their clock from here. */
  readonly recordedAt: number
  readonly entries: ReadonlyArray<RecordedEntry>
  readonly bodies: Record<string, string>
}

/** A bad recording: overrides of good.json, and the checks that must fail on it. */
export interface BadRecording {
  readonly variant: string
  readonly breaks: string
  readonly mustFail: ReadonlyArray<string>
  readonly entries: ReadonlyArray<RecordedEntry>
  readonly bodies: Record<string, string>
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex")

/** The key of a request. */
export const keyOf = (
  method: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined
) => {
  const u = new URL(url)
  const selected = SELECTING.flatMap((
    h
  ) => (headers[h] === undefined || (h === "accept-encoding" && headers[h] === "identity")
    ? []
    : [`${h}=${headers[h]}`])
  )
  return [method.toUpperCase(), `${u.pathname}${u.search}`, ...selected, body === undefined ? "" : sha(body)].join(" ")
}

/** The entries (and bodies) of exchanges. */
export const entriesOf = (exchanges: ReadonlyArray<Exchange>) => {
  const bodies: Record<string, string> = {}
  const entries = new Map<string, RecordedEntry>()
  for (const e of exchanges) {
    if (e.response.status === 0 || e.stream !== undefined) continue
    const hash = sha(e.response.body)
    bodies[hash] = e.response.body
    const headers = Object.fromEntries(
      Object.entries(e.response.headers).filter(([k]) =>
        !["date", "x-request-id", "keep-alive", "connection", "content-length", "transfer-encoding"].includes(k)
      )
    )
    const key = keyOf(e.request.method, e.request.url, e.request.headers, e.request.body)
    entries.set(key, { key, status: e.response.status, headers, body: hash })
  }
  return { entries: [...entries.values()], bodies }
}

/** A fetch that answers from a recording (with overrides); unrecorded requests get 599. */
export const replayFetch = (recording: Recording, overrides?: BadRecording): typeof globalThis.fetch => {
  const table = new Map(recording.entries.map((e) => [e.key, e]))
  for (const e of overrides?.entries ?? []) table.set(e.key, e)
  const bodies = { ...recording.bodies, ...overrides?.bodies }
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input)
    const headers: Record<string, string> = {}
    new Headers(init?.headers).forEach((v, k) => void (headers[k] = v))
    const body = typeof init?.body === "string" ? init.body : undefined
    const entry = table.get(keyOf(init?.method ?? "GET", url, headers, body))
    if (entry === undefined) {
      return new Response(`not recorded: ${init?.method ?? "GET"} ${url}`, {
        status: 599,
        headers: { "content-type": "text/plain" }
      })
    }
    const text = bodies[entry.body] ?? ""
    return new Response(entry.status === 304 || entry.status === 204 ? null : text, {
      status: entry.status,
      headers: entry.headers
    })
  }) as typeof globalThis.fetch
}

const dir = new URL("../../fixtures/http/", import.meta.url)

/** good.json */
export const good = (): Recording => JSON.parse(readFileSync(new URL("good.json", dir), "utf8")) as Recording

/** Every bad/<variant>.json */
export const bad = (): ReadonlyArray<BadRecording> =>
  readdirSync(new URL("bad/", dir)).filter((f) => f.endsWith(".json")).sort().map((f) =>
    JSON.parse(readFileSync(new URL(`bad/${f}`, dir), "utf8")) as BadRecording
  )
