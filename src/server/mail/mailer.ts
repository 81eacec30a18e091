import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * Sends over SMTP when `smtpUrl` is set. Without it a fresh install still lets a new
 * owner finish sign-up: the mail, link included, goes to the server log and to a file
 * in `DATA_DIR/outbox` (docs/decisions/0004-mail-without-smtp.md).
 */
export function createMailer(options: {
  smtpUrl: string | undefined;
  mailFrom: string;
  outboxDir: string;
  logger: FastifyBaseLogger;
}): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: options.mailFrom, ...mail });
        options.logger.info({ mailTo: mail.to, subject: mail.subject }, 'mail sent');
      },
      close: () => transport.close(),
    };
  }
  return {
    async send(mail) {
      await mkdir(options.outboxDir, { recursive: true, mode: 0o700 });
      const file = path.join(options.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.txt`);
      const content = `From: ${options.mailFrom}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`;
      await writeFile(file, content, { mode: 0o600 });
      options.logger.info(
        { mailTo: mail.to, subject: mail.subject, outboxFile: file, mailText: mail.text },
        'SMTP_URL is not set: mail written to the outbox instead of being sent',
      );
    },
    close: () => undefined,
  };
}
