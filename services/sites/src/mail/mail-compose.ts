// The compose form of the web mail (new message, reply, reply all, forward) with contact
// autocomplete on To and Cc. Enter in To/Cc picks the first suggestion and Enter in Subject
// moves to the message: only the "Send" button sends, as in desktop mail clients.
import {
  formatMailRecipients,
  mailForwardSubject,
  mailLongDate,
  mailReplyAddressing,
  type MailData,
  type MailMessage,
} from '@owrl/tasks/mail';
import { html, type Html } from '../html.js';
import { mailLayout, takeNotice, type LayoutContext } from './mail-layout.js';
import type { ComposeDraft } from './mail-session.js';

/** A draft prefilled for replying to / forwarding `m`. */
export function draftFor(m: MailMessage, mode: 'reply' | 'reply-all' | 'forward'): ComposeDraft {
  if (mode === 'forward') return { title: 'Forward', to: '', cc: '', subject: mailForwardSubject(m), body: '', forwardOf: m.id };
  const a = mailReplyAddressing(m, mode === 'reply-all');
  return {
    title: mode === 'reply' ? 'Reply' : 'Reply all',
    to: formatMailRecipients(a.to),
    cc: formatMailRecipients(a.cc),
    subject: a.subject,
    body: '',
    replyTo: m.id,
  };
}

export function emptyDraft(to = ''): ComposeDraft {
  return { title: 'New message', to, cc: '', subject: '', body: '' };
}

/** JSON for an inline script: `<` is escaped so no value can close the script element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c');
}

function composeScript(data: MailData): string {
  const contacts = data.contacts.map((c) => ({ n: c.name, e: c.email }));
  return `(function(){
var C=${scriptJson(contacts)};
function setup(id){
  var f=document.getElementById(id),box=document.getElementById(id+'-suggest');
  function parts(){var v=f.value,i=Math.max(v.lastIndexOf(','),v.lastIndexOf(';'));return {head:i<0?'':v.slice(0,i+1)+' ',tail:v.slice(i+1).trim().toLowerCase()};}
  function pick(c){f.value=parts().head+c.n+' <'+c.e+'>, ';box.hidden=true;box.textContent='';f.setAttribute('aria-expanded','false');f.focus();}
  function render(){
    var t=parts().tail;box.textContent='';
    var m=t===''?[]:C.filter(function(c){return (c.n+' '+c.e).toLowerCase().indexOf(t)>=0;}).slice(0,5);
    m.forEach(function(c){var b=document.createElement('button');b.type='button';b.setAttribute('role','option');b.textContent=c.n+' <'+c.e+'>';b.addEventListener('click',function(){pick(c);});box.appendChild(b);});
    box.hidden=m.length===0;f.setAttribute('aria-expanded',m.length>0?'true':'false');
  }
  f.addEventListener('input',render);
  f.addEventListener('keydown',function(e){if(e.key==='Enter'){e.preventDefault();var b=box.hidden?null:box.querySelector('button');if(b)b.click();}});
}
setup('to');setup('cc');
document.getElementById('subject').addEventListener('keydown',function(e){if(e.key==='Enter'){e.preventDefault();document.getElementById('body').focus();}});
})();`;
}

function recipientField(id: 'to' | 'cc', label: string, value: string): Html {
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${id}" type="text" value="${value}" autocomplete="off" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="${id}-suggest">
<div id="${id}-suggest" class="suggest" role="listbox" aria-label="Suggested contacts" hidden></div></div>`;
}

/** The compose page for `draft`; `original` is the message replied to or forwarded, if any. */
export function composePage(ctx: LayoutContext, draft: ComposeDraft, original: MailMessage | undefined): Html {
  const hidden = html`${draft.replyTo ? html`<input type="hidden" name="reply_to" value="${draft.replyTo}">` : ''}${
    draft.forwardOf ? html`<input type="hidden" name="forward_of" value="${draft.forwardOf}">` : ''
  }<input type="hidden" name="title" value="${draft.title}">`;
  const files =
    draft.forwardOf && original && original.attachments.length > 0
      ? html`<p class="range">Attached: ${original.attachments.map((a) => a.name).join(', ')}</p>`
      : '';
  const quoted = original
    ? html`<section class="quoted" aria-label="Original message"><p>${draft.forwardOf ? 'Forwarded message' : 'Original message'}: ${original.from.name}, ${mailLongDate(original.date)}</p>
<blockquote>${original.lines.map((l) => html`<p>${l}</p>`)}</blockquote></section>`
    : '';
  const body = html`<h1>${draft.title}</h1>${takeNotice(ctx.state)}
<form class="compose" method="post" action="/mail/send" autocomplete="off">${hidden}
${recipientField('to', 'To', draft.to)}${recipientField('cc', 'Cc', draft.cc)}
<div class="field"><label for="subject">Subject</label><input id="subject" name="subject" type="text" value="${draft.subject}"></div>
<div class="field"><label for="body">Message</label><textarea id="body" name="body" rows="9">${draft.body}</textarea></div>
${files}<div class="send-row"><button class="send" type="submit">Send</button><a href="${ctx.state.lastList}">Discard</a></div></form>${quoted}`;
  return mailLayout(ctx, draft.title, body, composeScript(ctx.data));
}
