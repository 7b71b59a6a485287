/**
 * Raw TCP clients for the resource-exhaustion tests: each from a chosen
 * loopback address (127.0.0.0/8 is all local on Linux), so that tests act as
 * distinct clients of one server.
 */
import { request } from "node:http"
import { connect, type Socket } from "node:net"
import { scaled } from "../../../../test/support/time.ts"

export interface Raw {
  readonly socket: Socket
  /** Everything received so far (latin1). */
  readonly received: () => string
  /** Resolves with the milliseconds from connect to close. */
  readonly closed: Promise<number>
  readonly isClosed: () => boolean
}

/** A connection from `localAddress` (connected when the promise resolves). */
export const open = (port: number, localAddress: string): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress })
    let data = ""
    let closedFlag = false
    const started = Date.now()
    const closed = new Promise<number>((done) =>
      socket.once("close", () => {
        closedFlag = true
        done(Date.now() - started)
      })
    )
    socket.on("data", (chunk: Buffer) => (data += chunk.toString("latin1")))
    socket.on("error", () => {})
    socket.once("connect", () => resolve({ socket, received: () => data, closed, isClosed: () => closedFlag }))
    socket.once("error", reject)
  })

/**
 * Waits for a promise at most `ms` (scaled: a bound on a wait, stretched on a
 * loaded machine, test/support/time.ts); undefined when it did not settle in time.
 */
export const within = <A>(promise: Promise<A>, ms: number): Promise<A | undefined> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), scaled(ms))
    promise.then((value) => {
      clearTimeout(timer)
      resolve(value)
    }, () => {
      clearTimeout(timer)
      resolve(undefined)
    })
  })

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `f` every 25 ms until it is true or `ms` (scaled, as in {@link within}) pass; returns its last value. */
export const eventually = async (f: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + scaled(ms)
  while (!f()) {
    if (Date.now() > deadline) return false
    await sleep(25)
  }
  return true
}

/** A GET on a fresh connection from `localAddress`: status and body, or the error's code. */
export const get = (
  port: number,
  path: string,
  localAddress: string,
  headers: Record<string, string> = {}
): Promise<{ readonly status: number; readonly body: string; readonly headers: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, localAddress, agent: false, headers }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
    })
    req.on("error", reject)
    req.end()
  })

/** The status code of the first response in raw bytes, if any. */
export const statusOf = (raw: string): number | undefined => {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(raw)
  return match === null ? undefined : Number(match[1])
}
