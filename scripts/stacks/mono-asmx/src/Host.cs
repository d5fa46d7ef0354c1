// A host for ASP.NET on Mono without xsp (Debian's xsp 4.2 does not start on Mono 6.8; see
// README.md): System.Net.HttpListener receives the requests and hands each to ASP.NET's own
// pipeline (HttpRuntime.ProcessRequest) through an HttpWorkerRequest, so the .asmx is compiled,
// routed by SOAPAction and answered by ASP.NET exactly as under xsp or IIS.
//
// Usage: mono WSTestHost.exe PORT SITE_DIR (PORT 0 picks a free port; the listening line on
// stderr names it). A fixed pool of threads, sized from the cores this process may use, each
// takes a request and runs it through the pipeline.
using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Web;
using System.Web.Hosting;

namespace WSTest
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            int port = args.Length > 0 ? int.Parse(args[0]) : 8082;
            string site = Path.GetFullPath(args.Length > 1 ? args[1] : ".");
            var bridge = (Bridge)ApplicationHost.CreateApplicationHost(typeof(Bridge), "/", site);
            int threads = bridge.Listen(port, site);
            Console.Error.WriteLine("mono-asmx listening on http://127.0.0.1:" + bridge.Port
                + "/TestService.asmx (" + threads + " threads, ASP.NET " + Environment.Version + ")");
            bridge.Wait();
            return 0;
        }
    }

    /// Lives in ASP.NET's application domain, so requests never cross domains.
    public sealed class Bridge : MarshalByRefObject
    {
        HttpListener listener;
        string site;
        public int Port;

        public override object InitializeLifetimeService()
        {
            return null;
        }

        public int Listen(int port, string physicalDir)
        {
            site = physicalDir;
            // HttpListener cannot bind port 0: take a free port from the kernel, then bind it,
            // trying again should another process take it in between.
            for (int attempt = 0; ; attempt++)
            {
                int chosen = port;
                if (port == 0)
                {
                    var probe = new TcpListener(IPAddress.Loopback, 0);
                    probe.Start();
                    chosen = ((IPEndPoint)probe.LocalEndpoint).Port;
                    probe.Stop();
                }
                listener = new HttpListener();
                listener.Prefixes.Add("http://127.0.0.1:" + chosen + "/");
                try
                {
                    listener.Start();
                    Port = chosen;
                    break;
                }
                catch (Exception) when (port == 0 && attempt < 20)
                {
                    listener.Close();
                }
            }
            int threads = Environment.GetEnvironmentVariable("ASMX_THREADS") is string n ? int.Parse(n) : 4 * Environment.ProcessorCount;
            ThreadPool.SetMinThreads(threads, threads);
            for (int i = 0; i < threads; i++)
            {
                new Thread(Serve) { IsBackground = true }.Start();
            }
            return threads;
        }

        public void Wait()
        {
            Thread.Sleep(Timeout.Infinite);
        }

        void Serve()
        {
            while (true)
            {
                HttpListenerContext context;
                try
                {
                    context = listener.GetContext();
                }
                catch (Exception)
                {
                    return;
                }
                try
                {
                    HttpRuntime.ProcessRequest(new ListenerWorkerRequest(context, site));
                }
                catch (Exception error)
                {
                    Console.Error.WriteLine("request failed: " + error.Message);
                    context.Response.Abort();
                }
            }
        }
    }

    /// One request, as ASP.NET's pipeline asks for it.
    sealed class ListenerWorkerRequest : HttpWorkerRequest
    {
        readonly HttpListenerRequest request;
        readonly HttpListenerResponse response;
        readonly string site;
        readonly MemoryStream body = new MemoryStream();

        public ListenerWorkerRequest(HttpListenerContext context, string site)
        {
            request = context.Request;
            response = context.Response;
            this.site = site;
        }

        public override string GetUriPath() { return request.Url.AbsolutePath; }
        public override string GetQueryString() { return request.Url.Query.TrimStart('?'); }
        public override string GetRawUrl() { return request.RawUrl; }
        public override string GetHttpVerbName() { return request.HttpMethod; }
        public override string GetHttpVersion() { return "HTTP/" + request.ProtocolVersion; }
        public override string GetRemoteAddress() { return request.RemoteEndPoint.Address.ToString(); }
        public override int GetRemotePort() { return request.RemoteEndPoint.Port; }
        public override string GetLocalAddress() { return request.LocalEndPoint.Address.ToString(); }
        public override int GetLocalPort() { return request.LocalEndPoint.Port; }
        public override string GetAppPath() { return "/"; }
        public override string GetAppPathTranslated() { return site + Path.DirectorySeparatorChar; }
        public override string GetFilePath() { return request.Url.AbsolutePath; }
        public override string GetFilePathTranslated() { return MapPath(request.Url.AbsolutePath); }
        public override string GetPathInfo() { return ""; }
        public override string GetProtocol() { return "HTTP"; }

        public override string MapPath(string virtualPath)
        {
            return Path.Combine(site, virtualPath.TrimStart('/').Replace('/', Path.DirectorySeparatorChar));
        }

        public override string GetKnownRequestHeader(int index)
        {
            return request.Headers[GetKnownRequestHeaderName(index)];
        }

        public override string GetUnknownRequestHeader(string name)
        {
            return request.Headers[name];
        }

        public override string[][] GetUnknownRequestHeaders()
        {
            var headers = new List<string[]>();
            foreach (string name in request.Headers.AllKeys)
            {
                if (GetKnownRequestHeaderIndex(name) < 0)
                {
                    headers.Add(new[] { name, request.Headers[name] });
                }
            }
            return headers.ToArray();
        }

        public override byte[] GetPreloadedEntityBody() { return null; }
        public override bool IsEntireEntityBodyIsPreloaded() { return false; }
        public override int GetTotalEntityBodyLength() { return (int)request.ContentLength64; }

        public override int ReadEntityBody(byte[] buffer, int size)
        {
            return request.InputStream.Read(buffer, 0, size);
        }

        public override void SendStatus(int statusCode, string statusDescription)
        {
            response.StatusCode = statusCode;
            response.StatusDescription = statusDescription;
        }

        public override void SendKnownResponseHeader(int index, string value)
        {
            switch (index)
            {
                case HeaderContentLength:
                    response.ContentLength64 = long.Parse(value);
                    break;
                case HeaderContentType:
                    response.ContentType = value;
                    break;
                case HeaderConnection:
                    if (string.Equals(value, "close", StringComparison.OrdinalIgnoreCase))
                    {
                        response.KeepAlive = false;
                    }
                    break;
                case HeaderTransferEncoding:
                case HeaderKeepAlive:
                    break;
                default:
                    response.Headers[GetKnownResponseHeaderName(index)] = value;
                    break;
            }
        }

        public override void SendUnknownResponseHeader(string name, string value)
        {
            response.Headers[name] = value;
        }

        public override void SendResponseFromMemory(byte[] data, int length)
        {
            body.Write(data, 0, length);
        }

        public override void SendResponseFromFile(string filename, long offset, long length)
        {
            using (var file = File.OpenRead(filename))
            {
                file.Seek(offset, SeekOrigin.Begin);
                var buffer = new byte[length];
                int read = file.Read(buffer, 0, buffer.Length);
                body.Write(buffer, 0, read);
            }
        }

        public override void SendResponseFromFile(IntPtr handle, long offset, long length)
        {
            throw new NotSupportedException("responses from file handles");
        }

        // ASP.NET buffers the whole response (Response.Buffer is on); it arrives here in pieces
        // and leaves in one write with its length, so keep-alive holds.
        public override void FlushResponse(bool finalFlush)
        {
        }

        public override void EndOfRequest()
        {
            response.ContentLength64 = body.Length;
            response.OutputStream.Write(body.GetBuffer(), 0, (int)body.Length);
            response.Close();
        }
    }
}
