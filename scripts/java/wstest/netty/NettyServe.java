// The HTTP side of the Netty stacks (java-netty-stax, java-netty-jibx): a server on 127.0.0.1
// that hands each POST's body to the stack's binding and answers with what it wrote. Plain
// HTTP/1.1; or, when `loadgen suite --tls` passes WSTEST_TLS_CERT and WSTEST_TLS_KEY, TLS by
// Netty's SslHandler, with h2 offered by ALPN beside http/1.1 when WSTEST_HTTP2=1 (Netty's
// HTTP/2 frame codec, each stream a child channel carrying the same request handler). TLS is
// OpenSSL's (netty-tcnative, the provider Netty's documentation recommends for speed) when it
// loads, the JDK's otherwise; the listening line says which.

package wstest.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;

import java.io.File;
import java.net.InetSocketAddress;

public final class NettyServe {
    /** The largest request body taken (larger ones get 413). */
    static final int MAX_BODY = 4 << 20;

    /** A stack's binding: reads the request envelope in `body`, writes the response's into `out`. */
    public interface Binding {
        void answer(ByteBuf body, ByteBuf out) throws Exception;

        /** Writes a SOAP fault envelope saying `reason` into `out`. */
        void fault(ByteBuf out, String reason);
    }

    private NettyServe() {}

    /**
     * Serves `binding` on 127.0.0.1:port until the process ends; `name` and `detail` go into the
     * listening line on stderr, which names the port.
     */
    public static void serve(String name, String detail, int port, Binding binding) throws Exception {
        int threads = Runtime.getRuntime().availableProcessors();
        String cert = System.getenv("WSTEST_TLS_CERT");
        String key = System.getenv("WSTEST_TLS_KEY");
        boolean http2 = "1".equals(System.getenv("WSTEST_HTTP2"));
        SslProvider provider = OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL)
                ? SslProvider.OPENSSL
                : SslProvider.JDK;
        SslContext tls = cert == null || key == null ? null : tlsContext(cert, key, provider, http2);
        // Netty's native epoll transport when setup.sh could build it, NIO otherwise.
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup boss = epoll ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
        EventLoopGroup workers = epoll ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        ChannelPipeline pipeline = channel.pipeline();
                        if (tls == null) {
                            http1(pipeline, binding);
                            return;
                        }
                        pipeline.addLast(tls.newHandler(channel.alloc()));
                        pipeline.addLast(new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                            @Override
                            protected void configurePipeline(ChannelHandlerContext context, String protocol) {
                                if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                                    http2(context.pipeline(), binding);
                                } else {
                                    http1(context.pipeline(), binding);
                                }
                            }
                        });
                    }
                });
        var channel = bootstrap.bind("127.0.0.1", port).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
        String transport = epoll ? "epoll" : "NIO";
        if (tls != null) {
            transport += ", TLS by " + (provider == SslProvider.OPENSSL ? OpenSsl.versionString() : "the JDK")
                    + (http2 ? ", h2 and http/1.1 by ALPN" : ", http/1.1");
        }
        System.err.println(name + " listening on " + (tls == null ? "http" : "https") + "://127.0.0.1:"
                + bound.getPort() + "/WSTest (" + threads + " event loops, " + transport + detail + ")");
        channel.closeFuture().sync();
    }

    /** The certificate chain and PKCS#8 key (PEM files), with ALPN. */
    static SslContext tlsContext(String cert, String key, SslProvider provider, boolean http2) throws Exception {
        String[] protocols = http2
                ? new String[] {ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1}
                : new String[] {ApplicationProtocolNames.HTTP_1_1};
        return SslContextBuilder.forServer(new File(cert), new File(key))
                .sslProvider(provider)
                // HTTP/2's cipher suites (RFC 7540, 9.2.2) in Netty's order of preference.
                .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .applicationProtocolConfig(new ApplicationProtocolConfig(
                        ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        protocols))
                .build();
    }

    static void http1(ChannelPipeline pipeline, Binding binding) {
        pipeline.addLast(new HttpServerCodec())
                .addLast(new HttpObjectAggregator(MAX_BODY))
                .addLast(new Handler(binding));
    }

    /**
     * HTTP/2: each stream a child channel that turns its frames into one FullHttpRequest for the
     * same handler. Windows of 1 MiB a stream, as wstest-server's, so that no WSTest message
     * waits for a WINDOW_UPDATE.
     */
    static void http2(ChannelPipeline pipeline, Binding binding) {
        pipeline.addLast(Http2FrameCodecBuilder.forServer()
                        .initialSettings(Http2Settings.defaultSettings()
                                .initialWindowSize(1 << 20)
                                .maxConcurrentStreams(100))
                        .build())
                .addLast(new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel stream) {
                        stream.pipeline()
                                .addLast(new Http2StreamFrameToHttpObjectCodec(true))
                                .addLast(new HttpObjectAggregator(MAX_BODY))
                                .addLast(new Handler(binding));
                    }
                }));
    }

    static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Binding binding;

        Handler(Binding binding) {
            this.binding = binding;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            FullHttpResponse response;
            if (!request.method().equals(HttpMethod.POST)) {
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.METHOD_NOT_ALLOWED);
            } else {
                ByteBuf out = context.alloc().buffer(4096);
                HttpResponseStatus status = HttpResponseStatus.OK;
                try {
                    binding.answer(request.content(), out);
                } catch (Exception | StackOverflowError error) {
                    out.clear();
                    status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
                    String reason = error instanceof StackOverflowError ? "the request nests too deeply"
                            : error.getMessage() != null ? error.getMessage()
                            : error.getClass().getSimpleName();
                    binding.fault(out, reason);
                }
                response = new DefaultFullHttpResponse(request.protocolVersion(), status, out);
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/xml; charset=utf-8");
            }
            HttpUtil.setContentLength(response, response.content().readableBytes());
            if (keepAlive) {
                // ab speaks HTTP/1.0 with Connection: Keep-Alive, which must be answered in kind.
                if (!request.protocolVersion().isKeepAliveDefault()) {
                    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                }
                context.writeAndFlush(response, context.voidPromise());
            } else {
                context.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            context.close();
        }
    }
}
