import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Sends through the SMTP server of `SMTP_URL`. */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    send: async (message) => {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () => transport.close(),
  };
}

/** Without SMTP, messages (links included) go to the log, so an operator can still pass them on. */
export function logMailer(logger: Logger): Mailer {
  return {
    send: async (message) => {
      logger.info({ mail: message }, `email to ${message.to}: ${message.subject}\n${message.text}`);
    },
    close: () => {},
  };
}
