/**
 * HTTP/1.1 load generator (a child process of the server bench): `connections`
 * keep-alive TCP connections to 127.0.0.1, one request in flight on each, for
 * `durationMs`; responses are framed by Content-Length (or have no body: 304,
 * 204) and their bodies are counted, never copied. Reports completed requests,
 * elapsed time, bytes and latency quantiles.
 */
import { connect, type Socket } from "node:net"
import { serveParent } from "./util.ts"

interface RunRequest {
  readonly port: number
  /** The raw request head, sent as is for every request. */
  readonly head: string
  readonly connections: number
  readonly durationMs: number
  readonly expectStatus: number
}

const CRLFCRLF = Buffer.from("\r\n\r\n")
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*([0-9]+)/i

const runLoad = (spec: RunRequest) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const request = Buffer.from(spec.head, "latin1")
    const latencies: Array<number> = []
    const statuses = new Map<number, number>()
    let completed = 0
    let bytes = 0
    let errors = 0
    let stopping = false
    let open = 0
    let started = 0n
    let finished = false
    let cpu0 = process.cpuUsage()
    const sockets: Array<Socket> = []

    const finish = () => {
      if (finished) return
      finished = true
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6
      const cpu = process.cpuUsage(cpu0)
      for (const s of sockets) s.destroy()
      latencies.sort((a, b) => a - b)
      const at = (q: number) =>
        latencies.length === 0
          ? Number.NaN
          : latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!
      resolve({
        completed,
        elapsedMs,
        bytes,
        errors,
        /** CPU of the load generator over the run: near elapsedMs means it was the bottleneck. */
        clientCpuMs: (cpu.user + cpu.system) / 1000,
        statuses: Object.fromEntries(statuses),
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        maxMs: at(1)
      })
    }

    const startConnection = (socket: Socket) => {
      let pending: Buffer | undefined
      let remaining = -1 // -1: reading a head
      let sentAt = 0n
      const send = () => {
        sentAt = process.hrtime.bigint()
        socket.write(request)
      }
      const complete = (status: number) => {
        completed++
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        if (status !== spec.expectStatus) errors++
        latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6)
        if (stopping) {
          open--
          socket.destroy()
          if (open === 0) finish()
        } else send()
      }
      let status = 0
      socket.on("data", (chunk: Buffer) => {
        let data = chunk
        while (data.length > 0) {
          if (remaining < 0) {
            const buffer: Buffer = pending === undefined ? data : Buffer.concat([pending, data])
            const end = buffer.indexOf(CRLFCRLF)
            if (end === -1) {
              if (buffer.length > 65536) {
                socket.destroy(new Error("response head over 64 KiB"))
                return
              }
              pending = Buffer.from(buffer) // copy: do not retain a large chunk
              return
            }
            pending = undefined
            const head = buffer.toString("latin1", 0, end)
            status = Number(head.slice(9, 12))
            const length = CONTENT_LENGTH.exec(head)
            if (status === 304 || status === 204) remaining = 0
            else if (length !== null) remaining = Number(length[1])
            else {
              socket.destroy(new Error(`response without Content-Length: ${head.split("\r\n")[0]}`))
              return
            }
            bytes += end + 4
            data = buffer.subarray(end + 4)
            if (remaining === 0) {
              remaining = -1
              complete(status)
            }
            continue
          }
          const take = Math.min(remaining, data.length)
          remaining -= take
          bytes += take
          data = data.subarray(take)
          if (remaining === 0) {
            remaining = -1
            complete(status)
          }
        }
      })
      socket.on("error", () => {
        errors++
      })
      socket.on("close", () => {
        if (!finished && !stopping) reject(new Error("the server closed a keep-alive connection"))
      })
      send()
    }

    let connected = 0
    for (let i = 0; i < spec.connections; i++) {
      const socket = connect({ host: "127.0.0.1", port: spec.port, noDelay: true })
      sockets.push(socket)
      socket.once("connect", () => {
        connected++
        if (connected === spec.connections) {
          started = process.hrtime.bigint()
          cpu0 = process.cpuUsage()
          open = spec.connections
          for (const s of sockets) startConnection(s)
          setTimeout(() => {
            stopping = true
          }, spec.durationMs)
        }
      })
      socket.once("error", (e) => {
        if (connected < spec.connections) reject(e)
      })
    }
  })

serveParent(async (message) => {
  if (message.type === "run") return runLoad(message as unknown as RunRequest)
  throw new Error(`unknown message ${message.type}`)
})
