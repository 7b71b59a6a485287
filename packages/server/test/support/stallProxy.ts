/**
 * A TCP proxy in front of a server (PostgreSQL in the tests) that can stall:
 * while stalled, every connection, old and new, stays open but nothing passes
 * in either direction (the bytes wait, as behind a partition that TCP
 * retransmission later heals); `resume` lets everything through again, the
 * waiting bytes first.
 */
import { connect, createServer, type Server, type Socket } from "node:net"

export interface StallProxy {
  readonly port: number
  /** Holds every byte in both directions, from now on. */
  readonly stall: () => void
  /** Lets the held bytes, and every later one, through. */
  readonly resume: () => void
  /** Connections opened through the proxy so far. */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

/** One direction of a connection: forwards, or holds while the proxy is stalled. */
interface Pipe {
  readonly flush: () => void
}

export const start = (target: { readonly host: string; readonly port: number }): Promise<StallProxy> =>
  new Promise((resolve, reject) => {
    let stalled = false
    let opened = 0
    const pipes = new Set<Pipe>()
    const sockets = new Set<Socket>()
    const track = (socket: Socket) => {
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
      socket.on("error", () => {})
    }
    const pipe = (from: Socket, to: Socket): Pipe => {
      const held: Array<Buffer> = []
      const self: Pipe = {
        flush: () => {
          for (const chunk of held.splice(0)) to.write(chunk)
        }
      }
      pipes.add(self)
      from.on("data", (chunk: Buffer) => {
        if (stalled || held.length > 0) held.push(chunk)
        else to.write(chunk)
      })
      from.once("close", () => {
        pipes.delete(self)
        // a close while stalled is held too: the other side learns of it when the proxy resumes
        const end = () => to.destroy()
        if (!stalled) end()
        else {
          const wait = setInterval(() => {
            if (!stalled) {
              clearInterval(wait)
              self.flush()
              end()
            }
          }, 20)
        }
      })
      return self
    }
    const server: Server = createServer((client) => {
      opened++
      track(client)
      const upstream = connect({ host: target.host, port: target.port })
      track(upstream)
      pipe(client, upstream)
      pipe(upstream, client)
    })
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        port,
        stall: () => {
          stalled = true
        },
        resume: () => {
          stalled = false
          for (const p of pipes) p.flush()
        },
        connections: () => opened,
        close: () =>
          new Promise<void>((done) => {
            stalled = false
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
