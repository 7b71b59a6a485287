/**
 * The bytes the kernel holds for a TCP socket that its peer has not yet
 * acknowledged: what a subscriber that stopped reading costs beyond the
 * process's own buffers.
 *
 * Why: a write to a socket completes as soon as the kernel copies it into the
 * socket's send buffer, which grows to megabytes (`net.ipv4.tcp_wmem`), so the
 * process's own count (`writableLength`) stays at 0 while a peer that reads
 * nothing accumulates event after event in the kernel. Node cannot shrink a TCP
 * socket's send buffer (no `SO_SNDBUF` on `net.Socket`), so the bytes are read
 * where Linux shows them: the `tx_queue` column of `/proc/net/tcp` and
 * `/proc/net/tcp6` (bytes written and not acknowledged), keyed by the socket's
 * local and remote address and port. One read serves every tracked socket; it
 * runs off the event loop, and only when asked ({@link SocketQueues.refresh}).
 *
 * Where `/proc/net/tcp` cannot be read (another OS, a restricted container),
 * {@link SocketQueues.available} is false and nothing is tracked.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import { NetAddress } from "effect/net"
import { accessSync, constants } from "node:fs"
import { readFile } from "node:fs/promises"
import type { Socket } from "node:net"
import { endianness } from "node:os"

/**
 * A tracked socket.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tracked {
  /** Bytes of the socket's send queue its peer had not acknowledged at the last refresh. */
  readonly unacknowledged: () => number
  /** Stops tracking the socket. */
  readonly release: () => void
}

/**
 * The send queues of tracked sockets.
 *
 * @category models
 * @since 0.1.0
 */
export interface SocketQueues {
  /** Whether the kernel's queues can be read on this system. */
  readonly available: boolean
  /** Tracks a connected TCP socket; undefined when its queue cannot be read. */
  readonly track: (socket: Socket) => Tracked | undefined
  /** Reads the queues of the tracked sockets (one read at a time; concurrent calls share it). */
  readonly refresh: () => Promise<void>
  /** The number of tracked sockets. */
  readonly size: () => number
}

const FILES = { v4: "/proc/net/tcp", v6: "/proc/net/tcp6" } as const

const littleEndian = endianness() === "LE"

const hex2 = (n: number) => (n < 16 ? "0" : "") + n.toString(16).toUpperCase()

/** An address as /proc/net/tcp prints it: each 32-bit word in host byte order, in hex. */
const addressHex = (bytes: ReadonlyArray<number>): string => {
  let out = ""
  for (let word = 0; word < bytes.length; word += 4) {
    const b = bytes.slice(word, word + 4)
    for (const byte of littleEndian ? b.reverse() : b) out += hex2(byte)
  }
  return out
}

const portHex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0")

/**
 * The `local remote` key of a socket's line in /proc/net/tcp or tcp6, and which
 * file holds it; undefined when the socket has no IP addresses.
 *
 * @category encoding
 * @since 0.1.0
 */
export const keyOf = (
  local: { readonly address: string | undefined; readonly port: number | undefined },
  remote: { readonly address: string | undefined; readonly port: number | undefined }
): { readonly family: "v4" | "v6"; readonly key: string } | undefined => {
  if (
    local.address === undefined || remote.address === undefined || local.port === undefined ||
    remote.port === undefined
  ) return undefined
  const parse = (text: string) => NetAddress.ipFromString(text.replace(/%.*$/, ""))
  const l = parse(local.address)
  const r = parse(remote.address)
  if (Result.isFailure(l) || Result.isFailure(r)) return undefined
  // the text form decides the file: an IPv4-mapped IPv6 socket is in tcp6
  const v6 = local.address.includes(":")
  const bytesOf = (address: NetAddress.IpAddress): ReadonlyArray<number> =>
    NetAddress.isIpv4Address(address)
      ? v6 ? NetAddress.ipv6ToOctets(NetAddress.toIpv4Mapped(address)) : NetAddress.ipv4ToOctets(address)
      : NetAddress.ipv6ToOctets(address)
  return {
    family: v6 ? "v6" : "v4",
    key: `${addressHex([...bytesOf(l.success)])}:${portHex(local.port)} ${addressHex([...bytesOf(r.success)])}:${
      portHex(remote.port)
    }`
  }
}

/**
 * Reads the `tx_queue` of the keyed lines of a /proc/net/tcp text into `into`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const readQueues = (text: string, into: ReadonlyMap<string, { value: number }>): void => {
  let pos = text.indexOf("\n") + 1
  while (pos > 0 && pos < text.length) {
    const end = text.indexOf("\n", pos)
    const lineEnd = end === -1 ? text.length : end
    // "%4d: LOCAL:PORT REMOTE:PORT ST TX_QUEUE:RX_QUEUE ..."
    const start = text.indexOf(": ", pos) + 2
    if (start > 1 && start < lineEnd) {
      const space = text.indexOf(" ", start)
      const keyEnd = text.indexOf(" ", space + 1)
      const entry = into.get(text.slice(start, keyEnd))
      if (entry !== undefined) entry.value = Number.parseInt(text.slice(keyEnd + 4, keyEnd + 12), 16) || 0
    }
    pos = end === -1 ? text.length : end + 1
  }
}

const readable = (path: string): boolean => {
  try {
    accessSync(path, constants.R_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The send queues of this system (unavailable where /proc/net/tcp cannot be read).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (): SocketQueues => {
  const available = process.platform === "linux" && readable(FILES.v4)
  const tracked = { v4: new Map<string, { value: number }>(), v6: new Map<string, { value: number }>() }
  let running: Promise<void> | undefined

  const readFamily = async (family: "v4" | "v6") => {
    const entries = tracked[family]
    if (entries.size === 0) return
    const text = await readFile(FILES[family], "latin1").catch(() => "")
    // a socket whose line is gone has nothing queued
    for (const entry of entries.values()) entry.value = 0
    readQueues(text, entries)
  }

  return {
    available,
    track: (socket) => {
      if (!available) return undefined
      const found = keyOf(
        { address: socket.localAddress, port: socket.localPort },
        { address: socket.remoteAddress, port: socket.remotePort }
      )
      if (found === undefined) return undefined
      const entries = tracked[found.family]
      const entry = { value: 0 }
      entries.set(found.key, entry)
      return {
        unacknowledged: () => entry.value,
        release: () => {
          if (entries.get(found.key) === entry) entries.delete(found.key)
        }
      }
    },
    refresh: () => {
      running ??= Promise.all([readFamily("v4"), readFamily("v6")]).then(
        () => {
          running = undefined
        },
        () => {
          running = undefined
        }
      )
      return running
    },
    size: () => tracked.v4.size + tracked.v6.size
  }
}
