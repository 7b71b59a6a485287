/**
 * An incremental parser of `text/event-stream` (the HTML server-sent events
 * format), for a fetch-based reader that works in browsers and Node.
 *
 * It follows the HTML standard's interpretation rules: lines end in CRLF, LF or
 * CR (also when a CRLF is split across chunks); a leading BOM is dropped;
 * `data` lines are joined with LF; `id` sets the last event id (unless it
 * contains NUL) and persists across events; `retry` with ASCII digits only sets
 * the reconnection time; lines starting with `:` are comments; an event is
 * dispatched on a blank line, and an event whose blank line never arrives (the
 * connection was cut mid-event) is never dispatched.
 *
 * @since 0.1.0
 */

/**
 * One item of the stream: a dispatched event, a `retry` value, or a comment
 * (heartbeats are comments).
 *
 * @category models
 * @since 0.1.0
 */
export type SseItem =
  | {
    readonly _tag: "Event"
    /** The event type (`message` when the event named none). */
    readonly event: string
    readonly data: string
    /** The last event id at dispatch time ("" when none was ever set). */
    readonly lastEventId: string
  }
  | { readonly _tag: "Retry"; readonly millis: number }
  | { readonly _tag: "Comment"; readonly text: string }

/**
 * The parser state. Feed it decoded text with {@link SseParser.push}; it
 * returns the items completed by that text.
 *
 * @category encoding
 * @since 0.1.0
 */
export class SseParser {
  private buffer = ""
  private started = false
  private skipLineFeed = false
  private eventType = ""
  private data = ""
  private hasData = false
  /** The last event id buffer (persists across events, as in the standard). */
  lastEventId = ""

  /**
   * Parses the next piece of text.
   */
  push(chunk: string): Array<SseItem> {
    const out: Array<SseItem> = []
    let text = chunk
    if (text.length === 0) return out
    if (!this.started) {
      this.started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (this.skipLineFeed) {
      this.skipLineFeed = false
      if (text.charCodeAt(0) === 10) text = text.slice(1)
    }
    const scanFrom = this.buffer.length
    const buffer = this.buffer + text
    let start = 0
    let i = scanFrom
    while (i < buffer.length) {
      const lf = buffer.indexOf("\n", i)
      const cr = buffer.indexOf("\r", i)
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
      if (end === -1) break
      this.line(buffer.slice(start, end), out)
      let next = end + 1
      if (buffer.charCodeAt(end) === 13) {
        if (next < buffer.length) {
          if (buffer.charCodeAt(next) === 10) next++
        } else {
          this.skipLineFeed = true
        }
      }
      start = next
      i = next
    }
    this.buffer = buffer.slice(start)
    return out
  }

  /**
   * Forgets a partial line and a partial event (the connection ended). The last
   * event id is kept, as the standard keeps it across reconnections.
   */
  reset(): void {
    this.buffer = ""
    this.started = false
    this.skipLineFeed = false
    this.eventType = ""
    this.data = ""
    this.hasData = false
  }

  private line(line: string, out: Array<SseItem>): void {
    if (line.length === 0) {
      if (this.hasData) {
        out.push({
          _tag: "Event",
          event: this.eventType === "" ? "message" : this.eventType,
          data: this.data,
          lastEventId: this.lastEventId
        })
      }
      this.eventType = ""
      this.data = ""
      this.hasData = false
      return
    }
    if (line.charCodeAt(0) === 58 /* : */) {
      out.push({ _tag: "Comment", text: line.slice(1).replace(/^ /, "") })
      return
    }
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    switch (field) {
      case "event":
        this.eventType = value
        break
      case "data":
        this.data = this.hasData ? `${this.data}\n${value}` : value
        this.hasData = true
        break
      case "id":
        if (!value.includes("\u0000")) this.lastEventId = value
        break
      case "retry":
        if (/^[0-9]+$/.test(value)) out.push({ _tag: "Retry", millis: Number(value) })
        break
      default:
        break
    }
  }
}
