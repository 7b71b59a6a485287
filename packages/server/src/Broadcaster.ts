/**
 * The event stream's fan-out: one broadcaster per server writes each confirmed
 * publication, framed and encoded once, to every subscriber, whatever carries the
 * subscriber (a `node:http` response on the fast path, an Effect stream
 * otherwise). The stream's rules live here, once:
 *
 * - on connect: `retry: <ms>`, then the current `feed` event (id = dataVersion),
 *   unless Last-Event-ID equals the current dataVersion; an older, newer or
 *   invalid Last-Event-ID gets the current event; no history is replayed;
 * - every later publication is a `feed` event; a subscriber never gets one
 *   dataVersion twice, nor an older one;
 * - an operator pause or a shutdown sends `publication-closed` and ends every
 *   stream; an internal failure sends `error` and ends them;
 * - a comment heartbeat every `heartbeatMillis` (one timer for all subscribers);
 * - a subscriber's stream may be compressed (`Sink.encoding`, see
 *   `StreamEncoding`): each frame is compressed once per coding and the same
 *   bytes go to every subscriber of that coding; a large frame is compressed off
 *   the event loop and reaches its subscribers when ready (a newer publication
 *   that is ready first wins: the older frame is then skipped, never sent after);
 * - bounded memory: at most `maxSubscribers` streams (503 beyond), at most
 *   `maxPerClient` per client address, and a subscriber whose backlog exceeds
 *   `max(2 × the current frame, minBacklogBytes)` is disconnected (it reconnects
 *   with Last-Event-ID and gets the current state). The backlog is what the
 *   sink holds (`buffered`) plus, when the sink can tell, what the kernel holds
 *   unacknowledged (`queued`, refreshed by `probe`): the kernel accepts writes
 *   into a send buffer of megabytes, so `buffered` alone stays at 0 for a peer
 *   that reads nothing. The sink's part is checked before each write of a
 *   publication; the whole backlog by a sweep (after `probe`) a second after
 *   each publication and at each heartbeat;
 * - a stream older than `maxLifetimeMillis` (when set; each stream's limit is
 *   shortened by up to 10 % at random, so that streams opened together do not
 *   all reconnect together) is ended: its client reconnects with Last-Event-ID
 *   after the `retry:` delay and, already holding the current version, gets no
 *   event again.
 *
 * @since 0.1.0
 */
import type { Publisher } from "@svc/core"
import { UINT } from "@svc/protocol/Patterns"
import * as StreamEncoding from "./StreamEncoding.ts"

/**
 * Where a subscriber's bytes go.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sink {
  /** The client address (per-client caps). */
  readonly client: string
  /** The stream's content coding (`StreamEncoding`); identity when absent. */
  readonly encoding?: StreamEncoding.StreamEncoding | undefined
  /** Writes bytes (never blocks; the sink buffers). */
  readonly write: (bytes: Uint8Array) => void
  /** Bytes written but not yet handed to the network. */
  readonly buffered: () => number
  /** Bytes handed to the network that the peer had not acknowledged at the last probe, if known. */
  readonly queued?: (() => number) | undefined
  /** Writes the last bytes (if any) and ends the stream. */
  readonly end: (bytes?: Uint8Array) => void
  /** Drops the stream at once (a subscriber that fell behind). */
  readonly destroy: () => void
}

/**
 * Options of a broadcaster.
 *
 * @category models
 * @since 0.1.0
 */
export interface BroadcasterOptions {
  /** Comment heartbeat period, ms. Default 15000. */
  readonly heartbeatMillis?: number | undefined
  /** `retry:` sent on connect, ms. Default 3000. */
  readonly retryMillis?: number | undefined
  /** Most concurrent subscribers (503 beyond). Default 10000. */
  readonly maxSubscribers?: number | undefined
  /** Most concurrent subscribers of one client address. Default: `maxSubscribers`. */
  readonly maxPerClient?: number | undefined
  /** Floor of the per-subscriber backlog, bytes. Default 64 KiB. */
  readonly minBacklogBytes?: number | undefined
  /** Longest stream, ms; 0 (the default) for no limit. */
  readonly maxLifetimeMillis?: number | undefined
  /** Refreshes the sinks' `queued` figures; called before each sweep. None: no sweeps. */
  readonly probe?: (() => Promise<void>) | undefined
  /** Delay of the sweep after a publication, ms. Default 1000. */
  readonly sweepDelayMillis?: number | undefined
}

/**
 * Why a new subscriber is refused.
 *
 * @category models
 * @since 0.1.0
 */
export type Refusal = "CLOSING" | "TOO_MANY_SUBSCRIBERS" | "TOO_MANY_CLIENT_SUBSCRIBERS"

const encoder = new TextEncoder()

/** `publication-closed` with its SseErrorEvent data. */
const CLOSED_FRAME = encoder.encode(
  `event: publication-closed\ndata: ${JSON.stringify({ error: "PUBLICATION_CLOSED" })}\n\n`
)
/** `error` with its SseErrorEvent data. */
const ERROR_FRAME = encoder.encode(`event: error\ndata: ${JSON.stringify({ error: "INTERNAL_ERROR" })}\n\n`)
const HEARTBEAT_FRAME = encoder.encode(": keep-alive\n\n")

/**
 * The `feed` event frame of a publication:
 * `id: <dataVersion>\nevent: feed\ndata: <SignedFeed>\n\n`.
 *
 * @category http
 * @since 0.1.0
 */
export const feedFrame = (publication: Publisher.Publication): Uint8Array => {
  // the full view's body is {"ok":true,"feed":<SignedFeed>}: the SignedFeed is its inner bytes
  const body = publication.fullView.body
  const prefix = encoder.encode(`id: ${publication.dataVersion}\nevent: feed\ndata: `)
  const suffix = encoder.encode("\n\n")
  const inner = body.subarray(18, body.length - 1)
  const frame = new Uint8Array(prefix.length + inner.length + suffix.length)
  frame.set(prefix, 0)
  frame.set(inner, prefix.length)
  frame.set(suffix, prefix.length + inner.length)
  return frame
}

interface Subscriber {
  readonly sink: Sink
  /** What the stream has sent in its coding. */
  readonly stream: StreamEncoding.StreamState
  /** When the stream is ended (Infinity: never). */
  readonly endsAt: number
  /** The newest dataVersion sent on this stream (-1: none yet). */
  lastVersion: bigint
}

/**
 * A broadcaster.
 *
 * @category models
 * @since 0.1.0
 */
export interface Broadcaster {
  /** Whether a new subscriber of a client would be accepted now. */
  readonly admit: (client: string) => Refusal | undefined
  /**
   * Adds a subscriber (after {@link admit}): writes `retry:` and the initial event
   * per the Last-Event-ID rules; returns the function that removes it.
   */
  readonly subscribe: (sink: Sink, lastEventId: string | undefined) => () => void
  /** Sends a confirmed publication to every subscriber that does not have it. */
  readonly publish: (publication: Publisher.Publication) => void
  /** Sends `publication-closed` to every subscriber and ends the streams (publication paused). */
  readonly closeAll: () => void
  /** Like {@link closeAll}, and refuses new subscribers for good (shutdown). */
  readonly shutdown: () => void
  /** Sends `error` to every subscriber and ends the streams. */
  readonly failAll: () => void
  /** The number of open streams. */
  readonly size: () => number
  /** Stops the timers. */
  readonly stop: () => void
}

/**
 * A broadcaster over the current publication (`current` is read at every connect).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  current: () => Publisher.Publication | undefined,
  options?: BroadcasterOptions
): Broadcaster => {
  const heartbeatMillis = Math.max(10, options?.heartbeatMillis ?? 15_000)
  const retryFrame = encoder.encode(`retry: ${Math.max(0, options?.retryMillis ?? 3000)}\n\n`)
  const maxSubscribers = Math.max(1, options?.maxSubscribers ?? 10_000)
  const maxPerClient = Math.max(1, options?.maxPerClient ?? maxSubscribers)
  const minBacklog = Math.max(1024, options?.minBacklogBytes ?? 64 * 1024)
  const maxLifetime = Math.max(0, options?.maxLifetimeMillis ?? 0)
  const probe = options?.probe
  const sweepDelay = Math.max(0, options?.sweepDelayMillis ?? 1000)
  const subscribers = new Set<Subscriber>()
  const perClient = new Map<string, number>()
  const frames = new WeakMap<Publisher.Publication, Uint8Array>()
  let shuttingDown = false
  /** Size of the newest frame sent, the base of the backlog bound. */
  let frameBytes = 0
  let sweepTimer: ReturnType<typeof setTimeout> | undefined

  const frameOf = (publication: Publisher.Publication) => {
    let frame = frames.get(publication)
    if (frame === undefined) {
      frame = feedFrame(publication)
      frames.set(publication, frame)
    }
    return frame
  }

  const remove = (s: Subscriber) => {
    if (!subscribers.delete(s)) return
    const n = (perClient.get(s.sink.client) ?? 1) - 1
    if (n <= 0) perClient.delete(s.sink.client)
    else perClient.set(s.sink.client, n)
  }

  /** Writes a frame in the subscriber's coding. */
  const send = (s: Subscriber, encoded: StreamEncoding.Encoded) => s.sink.write(s.stream.frame(encoded))

  /** A small constant frame in a subscriber's coding (heartbeat, retry, closing events). */
  const small = (s: Subscriber, frame: Uint8Array) => StreamEncoding.encodeSmall(frame, s.stream.encoding)

  /** Ends a subscriber's stream normally, after an optional last frame. */
  const finish = (s: Subscriber, last?: Uint8Array) =>
    s.sink.end(s.stream.close(last === undefined ? undefined : small(s, last)))

  /** Sends a publication's frame to a subscriber that does not have it (or a newer one). */
  const deliver = (s: Subscriber, dataVersion: bigint, encoded: StreamEncoding.Encoded, limit: number) => {
    if (dataVersion <= s.lastVersion || !subscribers.has(s)) return
    if (s.sink.buffered() > limit) {
      // too slow: drop it; the client reconnects and gets the current state
      remove(s)
      s.sink.destroy()
      return
    }
    s.lastVersion = dataVersion
    send(s, encoded)
  }

  /** A frame computed off the event loop reaches its subscribers when ready; a failure drops them (they reconnect). */
  const later = (
    pending: Promise<StreamEncoding.Encoded>,
    dataVersion: bigint,
    targets: ReadonlyArray<Subscriber>
  ) =>
    pending.then(
      (encoded) => {
        const limit = backlogLimit()
        for (const s of targets) deliver(s, dataVersion, encoded, limit)
      },
      () => {
        for (const s of targets) {
          if (!subscribers.has(s)) continue
          remove(s)
          s.sink.destroy()
        }
      }
    )

  const endAll = (frame: Uint8Array) => {
    // oxlint-disable-next-line unicorn/no-useless-spread -- a snapshot: remove() mutates the set
    for (const s of [...subscribers]) {
      remove(s)
      finish(s, frame)
    }
  }

  const backlogLimit = () => Math.max(2 * frameBytes, minBacklog)

  /** Drops the subscribers whose backlog, the kernel's part included, is over the bound. */
  const sweep = () => {
    const limit = backlogLimit()
    // oxlint-disable-next-line unicorn/no-useless-spread -- a snapshot: remove() mutates the set
    for (const s of [...subscribers]) {
      if (s.sink.buffered() + (s.sink.queued?.() ?? 0) > limit) {
        remove(s)
        s.sink.destroy()
      }
    }
  }

  const scheduleSweep = (delay: number) => {
    if (probe === undefined || sweepTimer !== undefined || subscribers.size === 0) return
    sweepTimer = setTimeout(() => {
      sweepTimer = undefined
      probe().then(sweep, () => {})
    }, delay)
    sweepTimer.unref()
  }

  const heartbeat = setInterval(() => {
    const now = Date.now()
    for (const s of subscribers) {
      if (now >= s.endsAt) {
        // the client reconnects with Last-Event-ID after the retry delay
        remove(s)
        finish(s)
        continue
      }
      send(s, small(s, HEARTBEAT_FRAME))
    }
    scheduleSweep(0)
  }, heartbeatMillis)
  heartbeat.unref()

  return {
    admit: (client) =>
      shuttingDown
        ? "CLOSING"
        : subscribers.size >= maxSubscribers
        ? "TOO_MANY_SUBSCRIBERS"
        : (perClient.get(client) ?? 0) >= maxPerClient
        ? "TOO_MANY_CLIENT_SUBSCRIBERS"
        : undefined,
    subscribe: (sink, lastEventId) => {
      const publication = current()
      const s: Subscriber = {
        sink,
        stream: StreamEncoding.state(sink.encoding ?? "identity"),
        endsAt: maxLifetime > 0 ? Date.now() + maxLifetime * (1 - 0.1 * Math.random()) : Number.POSITIVE_INFINITY,
        lastVersion: -1n
      }
      const open = s.stream.open()
      if (open !== undefined) sink.write(open)
      send(s, small(s, retryFrame))
      if (publication === undefined) {
        finish(s, CLOSED_FRAME)
        return () => {}
      }
      subscribers.add(s)
      perClient.set(sink.client, (perClient.get(sink.client) ?? 0) + 1)
      const known = lastEventId !== undefined && UINT.test(lastEventId) ? lastEventId : undefined
      const frame = frameOf(publication)
      frameBytes = Math.max(frameBytes, frame.length)
      if (known === publication.dataVersion.toString()) s.lastVersion = publication.dataVersion
      else {
        const encoded = StreamEncoding.encode(frame, s.stream.encoding)
        if (encoded instanceof Promise) void later(encoded, publication.dataVersion, [s])
        else deliver(s, publication.dataVersion, encoded, Number.POSITIVE_INFINITY)
      }
      return () => remove(s)
    },
    publish: (publication) => {
      const frame = frameOf(publication)
      frameBytes = frame.length
      const limit = backlogLimit()
      const waiting = new Map<StreamEncoding.StreamEncoding, Array<Subscriber>>()
      for (const s of subscribers) {
        if (publication.dataVersion <= s.lastVersion) continue
        const encoded = StreamEncoding.encode(frame, s.stream.encoding)
        if (encoded instanceof Promise) {
          const list = waiting.get(s.stream.encoding)
          if (list === undefined) waiting.set(s.stream.encoding, [s])
          else list.push(s)
        } else deliver(s, publication.dataVersion, encoded, limit)
      }
      for (const [encoding, targets] of waiting) {
        void later(
          StreamEncoding.encode(frame, encoding) as Promise<StreamEncoding.Encoded>,
          publication.dataVersion,
          targets
        )
      }
      scheduleSweep(sweepDelay)
    },
    closeAll: () => endAll(CLOSED_FRAME),
    shutdown: () => {
      shuttingDown = true
      endAll(CLOSED_FRAME)
    },
    failAll: () => endAll(ERROR_FRAME),
    size: () => subscribers.size,
    stop: () => {
      clearInterval(heartbeat)
      if (sweepTimer !== undefined) clearTimeout(sweepTimer)
    }
  }
}
