/**
 * An incremental parser of `text/event-stream` (the WHATWG HTML "server-sent
 * events" interpretation rules), fed with bytes as they arrive.
 *
 * A conformance harness cannot read an event stream "whole": the stream never
 * ends. This parser is pushed chunk by chunk (chunks may split a line, a CRLF
 * pair or a multi-byte UTF-8 character anywhere) and returns each event as soon
 * as its terminating blank line has arrived.
 *
 * Differences from a browser `EventSource`, all for inspection:
 *
 * - every dispatched event says whether its own block carried an `id:` line
 *   (`idInBlock`), besides the inherited last event id;
 * - comments (`: keep-alive`) and `retry:` values are counted and kept;
 * - events with an empty data buffer are not dispatched (as the standard says),
 *   but are counted in `emptyBlocks`.
 *
 * @since 0.1.0
 */

/**
 * One dispatched event.
 *
 * @category models
 * @since 0.1.0
 */
export interface SseEvent {
  /** The event type (`message` when the block had no `event:` line). */
  readonly event: string
  /** The data lines joined with LF. */
  readonly data: string
  /** The last event id at dispatch (inherited from earlier blocks when this one has no `id:`). */
  readonly lastEventId: string
  /** Whether this event's own block carried an `id:` line. */
  readonly idInBlock: boolean
}

/**
 * A parser instance.
 *
 * @category models
 * @since 0.1.0
 */
export interface SseParser {
  /** Feeds bytes (or already decoded text) and returns the events completed by them. */
  readonly push: (chunk: Uint8Array | string) => ReadonlyArray<SseEvent>
  /** Ends the stream: a trailing incomplete event is discarded (as the standard says). */
  readonly end: () => ReadonlyArray<SseEvent>
  /** Comment lines seen (for example heartbeats), with their text. */
  readonly comments: () => ReadonlyArray<string>
  /** `retry:` values seen, in order. */
  readonly retries: () => ReadonlyArray<number>
  /** Blocks ended by a blank line that had no data (not dispatched). */
  readonly emptyBlocks: () => number
  /** Lines whose field name is not one of event, data, id, retry. */
  readonly unknownFields: () => ReadonlyArray<string>
}

/**
 * Makes an incremental parser.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeParser = (): SseParser => {
  const decoder = new TextDecoder("utf-8")
  let buffer = ""
  let started = false
  let pendingCR = false
  let data: Array<string> = []
  let hasData = false
  let eventType = ""
  let lastEventId = ""
  let idInBlock = false
  let empty = 0
  const comments: Array<string> = []
  const retries: Array<number> = []
  const unknown: Array<string> = []

  const line = (text: string, out: Array<SseEvent>) => {
    if (text.length === 0) {
      if (hasData) {
        out.push({ event: eventType.length > 0 ? eventType : "message", data: data.join("\n"), lastEventId, idInBlock })
      } else {
        empty++
      }
      data = []
      hasData = false
      eventType = ""
      idInBlock = false
      return
    }
    if (text.startsWith(":")) {
      comments.push(text.slice(1).replace(/^ /, ""))
      return
    }
    const colon = text.indexOf(":")
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? "" : text.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    switch (field) {
      case "event":
        eventType = value
        return
      case "data":
        data.push(value)
        hasData = true
        return
      case "id":
        if (!value.includes("\u0000")) {
          lastEventId = value
          idInBlock = true
        }
        return
      case "retry":
        if (/^[0-9]+$/.test(value)) retries.push(Number(value))
        return
      default:
        unknown.push(field)
    }
  }

  const consume = (text: string): ReadonlyArray<SseEvent> => {
    const out: Array<SseEvent> = []
    let s = text
    if (!started && s.length > 0) {
      started = true
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1)
    }
    if (pendingCR && s.startsWith("\n")) s = s.slice(1)
    pendingCR = false
    buffer += s
    let start = 0
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i)
      if (c === 10 || c === 13) {
        line(buffer.slice(start, i), out)
        if (c === 13) {
          if (i + 1 < buffer.length) {
            if (buffer.charCodeAt(i + 1) === 10) i++
          } else {
            pendingCR = true
          }
        }
        start = i + 1
      }
    }
    buffer = buffer.slice(start)
    return out
  }

  return {
    push: (chunk) => consume(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true })),
    end: () => {
      const rest = consume(decoder.decode())
      buffer = ""
      return rest
    },
    comments: () => comments,
    retries: () => retries,
    emptyBlocks: () => empty,
    unknownFields: () => unknown
  }
}

/**
 * Parses a whole text (for fixtures and tests).
 *
 * @category constructors
 * @since 0.1.0
 */
export const parseAll = (text: string | Uint8Array): ReadonlyArray<SseEvent> => {
  const parser = makeParser()
  return [...parser.push(text), ...parser.end()]
}

/**
 * Serializes an event as `id:`/`event:`/`data:` lines and a blank line (LF).
 *
 * @category constructors
 * @since 0.1.0
 */
export const frame = (event: { readonly event?: string; readonly id?: string; readonly data: string }): string =>
  `${event.id === undefined ? "" : `id: ${event.id}\n`}${event.event === undefined ? "" : `event: ${event.event}\n`}${
    event.data.split("\n").map((l) => `data: ${l}\n`).join("")
  }\n`
