import { createSocket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

/** NXDOMAIN, in the low bits of a DNS answer's flags. */
const NXDOMAIN = 3;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as DNS_RESOLVERS takes it. */
  address: string;
  /** Publishes (or, with no values, removes) the TXT records of a name. */
  setTxt(name: string, values: string[]): void;
  close(): Promise<void>;
}

/**
 * An authoritative-looking DNS server on 127.0.0.1 over UDP that answers TXT questions from
 * the records a test publishes, and NXDOMAIN for any other name: the app's resolver is
 * pointed at it with DNS_RESOLVERS.
 */
export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    const values = question?.type === 'TXT' ? records.get(question.name.toLowerCase()) : undefined;
    const answer = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHORITATIVE_ANSWER | (values ? 0 : NXDOMAIN),
      questions: query.questions,
      answers: (values ?? []).map((value) => ({
        type: 'TXT' as const,
        class: 'IN' as const,
        name: question?.name ?? '',
        ttl: 0,
        data: value,
      })),
    });
    socket.send(answer, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    setTxt: (name, values) => {
      if (values.length === 0) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), values);
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
