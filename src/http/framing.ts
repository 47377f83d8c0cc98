/**
 * Who may show the engine's HTML inside a frame (issue 39 §3). A page of another origin that frames
 * the workbench or the phone layout invisibly over a button of its own gets the person's click on
 * "Allow once" (clickjacking). So every HTML answer says that no page may frame it
 * (`Content-Security-Policy: frame-ancestors 'none'`, and `X-Frame-Options: DENY` for browsers that
 * predate frame-ancestors), except the pages the workbench frames itself (a dashboard's or an
 * atlas's page in its Dashboards view), which only the engine's own origin may frame. A policy in a
 * <meta> tag cannot say this: browsers honour frame-ancestors from the header only.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

const POLICY = {
  none: { directive: "frame-ancestors 'none'", legacy: 'DENY' },
  self: { directive: "frame-ancestors 'self'", legacy: 'SAMEORIGIN' },
} as const;

/** Sets who may frame this answer, added to the Content-Security-Policy the answer already has. */
export function setFraming(reply: FastifyReply, who: keyof typeof POLICY): FastifyReply {
  const { directive, legacy } = POLICY[who];
  const csp = reply.getHeader('content-security-policy');
  return reply.header('content-security-policy', csp ? `${csp}; ${directive}` : directive).header('x-frame-options', legacy);
}

/** The policy of a self-contained page (a dashboard's, an atlas's): no script, nothing loaded, no form, no base. */
export const SELF_CONTAINED_PAGE = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** Sends a self-contained page the workbench frames in its Dashboards view: only the engine's origin may frame it. */
export function sendFramedPage(reply: FastifyReply, html: string): FastifyReply {
  return setFraming(reply.type('text/html; charset=utf-8').header('content-security-policy', SELF_CONTAINED_PAGE), 'self').send(html);
}

/** Every HTML answer that did not say who may frame it gets "nobody". Install before any route. */
export function installFramePolicy(app: FastifyInstance): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (!reply.hasHeader('x-frame-options') && String(reply.getHeader('content-type') ?? '').startsWith('text/html')) setFraming(reply, 'none');
    done(null, payload);
  });
}
