import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface CapturedMail {
  to: string[];
  subject: string;
  /** The message with quoted-printable soft breaks and escapes undone. */
  body: string;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** A real SMTP server inside the test process; the app sends to it through SMTP_URL. */
export async function startSmtpCapture() {
  const mails: CapturedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '';
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject,
          body: decodeQuotedPrintable(raw),
        });
        waiters.splice(0).forEach((wake) => wake());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  /** Waits (event-driven, bounded) for a mail to `to` whose subject contains `subjectPart`. */
  async function waitForMail(to: string, subjectPart: string, timeoutMs = 10_000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = mails.find((m) => m.to.includes(to) && m.subject.includes(subjectPart));
      if (found) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`No mail to ${to} with subject "${subjectPart}" within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail,
    /** The first link in a mail that points at `pathPart`. */
    linkIn(mail: CapturedMail, pathPart: string): string {
      const match = new RegExp(`https?://[^\\s"<>]*${pathPart.replace(/[/]/g, '\\/')}[^\\s"<>]*`).exec(mail.body);
      if (!match) throw new Error(`No link to ${pathPart} in mail "${mail.subject}"`);
      return match[0].replace(/&amp;/g, '&');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type SmtpCapture = Awaited<ReturnType<typeof startSmtpCapture>>;
