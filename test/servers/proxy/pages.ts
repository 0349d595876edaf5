/**
 * What real proxies and CDNs answer when their upstream misbehaves, and what a URL that is not an
 * MCP server answers: the bodies the fault proxy serves.
 */

/** A Cloudflare-style error page: a doctype, styles and scripts around a short message. */
export function cloudflarePage(status: number, title: string, message: string): string {
  return `<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<html class="no-js" lang="en-US"> <!--<![endif]-->
<head>
<title>mcp.example.com | ${status}: ${title}</title>
<meta charset="UTF-8" />
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<meta name="robots" content="noindex, nofollow" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" />
<style>body{margin:0;padding:0}${"#cf-wrapper .cf-section{display:block}".repeat(40)}</style>
<script>(function(){window._cf_chl_opt={cvId: '3',cType: 'non-interactive',cRay: '8c1f2e3d4a5b6c7d'};${"var a=1;".repeat(200)}})();</script>
</head>
<body>
<div id="cf-wrapper"><div id="cf-error-details" class="p-0">
<header class="mx-auto pt-10 lg:pt-6 lg:px-8 w-240 lg:w-full mb-8">
<h1 class="inline-block sm:block sm:mb-2 font-light text-60 lg:text-4xl text-black-dark leading-tight mr-2">
<span class="inline-block">${title}</span>
<span class="code-label">Error code ${status}</span></h1>
</header>
<div class="w-240 lg:w-full mx-auto mb-8 lg:px-8"><div class="clearfix">
<div class="w-1/2 md:w-full float-left pr-6 md:pb-10 md:pr-0 leading-relaxed">
<h2 class="text-3xl font-normal leading-1.3 mb-4">What happened?</h2>
<p>${message}</p>
</div></div></div>
<script>${"document.getElementById('cf-footer');".repeat(50)}</script>
</div></div></body></html>`;
}

/** The `<title>` of a Cloudflare page made by `cloudflarePage`. */
export const cloudflareTitle = (status: number, title: string) => `mcp.example.com | ${status}: ${title}`;

/** Cloudflare's pages, by status: the origin unreachable (521, 522) or answering badly (520, 524). */
export const CLOUDFLARE = {
  520: ["Web server is returning an unknown error", "There is an unknown connection issue between Cloudflare and the origin web server."],
  521: ["Web server is down", "The web server is not returning a connection. As a result, the web page is not displaying."],
  522: ["Connection timed out", "The initial connection between Cloudflare's network and the origin web server timed out. As a result, the web page can not be displayed."],
  524: ["A timeout occurred", "Cloudflare was able to complete a TCP connection to the origin server, but did not receive a timely HTTP response."],
} as const satisfies Record<number, readonly [title: string, message: string]>;

export const CLOUDFLARE_522 = cloudflarePage(522, ...CLOUDFLARE[522]);

/** nginx's own page for 502 and 504. */
export const nginxPage = (status: 502 | 504) => {
  const line = `${status} ${status === 502 ? "Bad Gateway" : "Gateway Time-out"}`;
  return `<html>\r\n<head><title>${line}</title></head>\r\n<body>\r\n<center><h1>${line}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
};

/** Envoy's 503 when the upstream reset the connection after the request was forwarded. */
export const ENVOY_TERMINATION = "upstream connect error or disconnect/reset before headers. retried and the latest reset reason: connection termination";

/** A single-sign-on page in front of the server: a 200 that is not MCP. */
export const LOGIN_PAGE_TITLE = "Sign in – Acme SSO";
export const LOGIN_PAGE = `<!doctype html><html><head><title>${LOGIN_PAGE_TITLE}</title><script>var x=1</script></head><body><h1>Sign in</h1><p>Use your corporate account.</p></body></html>`;

/** Another API's JSON at the MCP URL: a 200 that is not JSON-RPC. */
export const GATEWAY_JSON = JSON.stringify({ status: "ok", service: "gateway", version: 3 });
