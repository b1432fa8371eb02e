// The console's style sheet and its one small client script (plain browser JavaScript, served
// inline): live updates over server-sent events (the overview's live part swapped in place),
// control calls with confirmation and the token kept for the tab, and step navigation in the viewer.

export const STYLE = `
:root{--fg:#1d1d1f;--muted:#777;--line:#e3e3e3;--ok:#2ea36b;--fail:#e0533d;--accent:#2f6fde}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:#fafafa}
header{background:#1d1d1f;color:#fff;padding:8px 16px;display:flex;gap:6px;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header .brand{font-weight:700;color:#fff}
.conn{margin-left:auto;color:#888}.conn.up{color:#4cd964}.conn.down{color:#ff5f57}
main{padding:12px 20px;max-width:1600px}
h1{font-size:20px;margin:8px 0}h2{font-size:16px;margin:18px 0 6px}h3{font-size:14px;margin:10px 0 4px}
table{border-collapse:collapse;background:#fff;font-size:13px}th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{font-size:12px;background:#f1f1f1;padding:0 3px;border-radius:3px}
.muted{color:var(--muted)}.error{color:var(--fail)}.ok{color:var(--ok)}.fail{color:var(--fail)}.excluded{color:#a66f00}
.summary{display:flex;flex-wrap:wrap;gap:6px 18px;margin:6px 0}.summary div{background:#fff;border:1px solid var(--line);padding:4px 10px;border-radius:6px}
.summary dt{font-size:11px;color:var(--muted)}.summary dd{margin:0;font-weight:600}
.phase-running{color:var(--ok)}.phase-paused{color:#a66f00}.phase-failed{color:var(--fail)}
.charts{display:flex;flex-wrap:wrap;gap:10px}.charts svg{border:1px solid var(--line);border-radius:6px;max-width:100%;height:auto}
.cols{display:flex;flex-wrap:wrap;gap:24px}
.controls{background:#fff;border:1px solid var(--line);padding:8px 12px;border-radius:6px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.fate-kept{color:var(--ok)}.fate-dropped_all_zero{color:var(--fail)}.fate-dropped_all_one{color:var(--accent)}.fate-abandoned,.fate-pending{color:var(--muted)}
.side-by-side{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:10px}
.rollout{background:#fff;border:1px solid var(--line);border-radius:6px;padding:8px}
.steps{padding-left:0;list-style:none}.steps li a{display:flex;gap:6px;align-items:center;text-decoration:none;color:inherit;padding:2px 0}
.thumb{width:72px;height:45px;object-fit:cover;border:1px solid var(--line)}
.viewer{display:grid;grid-template-columns:260px 1fr;gap:14px;margin-top:10px}
.step-list{padding-left:18px;font-size:13px}.step-list a{color:inherit;text-decoration:none}.step-list a.current{font-weight:700;color:var(--accent)}
.step-grid{display:grid;grid-template-columns:minmax(0,3fr) minmax(280px,2fr);gap:14px}
.shot{position:relative;border:1px solid var(--line);background:#fff;align-self:start}.shot img{display:block;width:100%;height:auto}
.shot svg{position:absolute;inset:0;width:100%;height:100%;pointer-events:none}
pre{white-space:pre-wrap;background:#fff;border:1px solid var(--line);padding:6px;font-size:12px}
.calls{padding-left:18px}.effects{margin:2px 0 6px;padding-left:16px}
form.inline{margin-top:6px}input{font:inherit;padding:2px 5px}button{font:inherit;cursor:pointer}
`;

export const CLIENT_SCRIPT = `
(function(){
  var conn=document.getElementById('conn');
  var tokenInput=document.getElementById('token');
  if(tokenInput){tokenInput.value=sessionStorage.getItem('owrl-token')||'';tokenInput.addEventListener('input',function(){sessionStorage.setItem('owrl-token',tokenInput.value);});}
  function token(){return tokenInput?tokenInput.value:(sessionStorage.getItem('owrl-token')||'');}
  function say(text,ok){var el=document.getElementById('control-result');if(el){el.textContent=text;el.className=ok?'ok':'error';}}
  async function post(path,body){
    var r=await fetch(path,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)});
    var j={};try{j=await r.json();}catch(e){}
    return {ok:r.ok,status:r.status,message:j.message||j.error||r.statusText};
  }
  if(document.body.dataset.live){
    var es=new EventSource('/events');
    es.addEventListener('open',function(){if(conn)conn.className='conn up';});
    es.addEventListener('error',function(){if(conn)conn.className='conn down';});
    es.addEventListener('state',function(ev){
      var d=JSON.parse(ev.data);var live=document.getElementById('live');
      if(live){live.outerHTML=d.html;}
      document.body.dataset.rv=d.rv;document.body.dataset.updates=String(Number(document.body.dataset.updates||0)+1);
      if(conn)conn.className='conn up';
    });
  }
  document.addEventListener('click',async function(e){
    var t=e.target;if(!(t instanceof HTMLElement))return;
    if(t.id==='pause'||t.id==='resume'){
      var what=t.id;
      if(!confirm(what==='pause'?'Pause the run? Actors finish their current episodes; nothing new is dispatched.':'Resume the run?'))return;
      var r=await post('/api/'+what,{token:token(),reason:'paused from the console'});
      say(r.ok?(what==='pause'?'paused':'resumed'):('refused: '+r.message),r.ok);
    }else if(t.classList.contains('bl-remove')){
      var host=t.dataset.host;
      if(!confirm('Remove '+host+' from the blacklist? The scheduler and the actors will use it again.'))return;
      var r2=await post('/api/blacklist',{token:token(),action:'remove',host:host});
      say(r2.ok?('removed '+host):('refused: '+r2.message),r2.ok);
    }else if(t.dataset.step!==undefined&&t.closest('.step-list')){
      e.preventDefault();show(Number(t.dataset.step),true);
    }
  });
  document.addEventListener('submit',async function(e){
    var f=e.target;if(!(f instanceof HTMLFormElement)||f.id!=='bl-add')return;
    e.preventDefault();
    var host=f.elements.namedItem('host').value,reason=f.elements.namedItem('reason').value,ttl=Number(f.elements.namedItem('ttl').value);
    if(!confirm('Blacklist '+host+' for '+ttl+' min ('+reason+')? Its tasks will not be scheduled or run.'))return;
    var r=await post('/api/blacklist',{token:token(),action:'add',host:host,reason:reason,ttlMinutes:ttl});
    say(r.ok?('blacklisted '+host):('refused: '+r.message),r.ok);
  });
  function show(n,push){
    var secs=document.querySelectorAll('section.step');if(secs.length===0)return;
    var found=false;
    secs.forEach(function(s){var on=Number(s.dataset.step)===n;s.hidden=!on;if(on)found=true;});
    if(!found)return;
    document.querySelectorAll('.step-list a').forEach(function(a){a.classList.toggle('current',Number(a.dataset.step)===n);});
    if(push){var u=new URL(location.href);u.searchParams.set('step',String(n));history.pushState({step:n},'',u);}
  }
  window.addEventListener('popstate',function(){var s=new URL(location.href).searchParams.get('step');if(s!==null)show(Number(s),false);});
  document.addEventListener('keydown',function(e){
    var cur=document.querySelector('section.step:not([hidden])');if(!cur||e.target instanceof HTMLInputElement)return;
    var n=Number(cur.dataset.step);
    if(e.key==='ArrowRight')show(n+1,true);else if(e.key==='ArrowLeft')show(n-1,true);
  });
})();
`;
