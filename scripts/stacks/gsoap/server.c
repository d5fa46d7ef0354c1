/*
 * The WSTest service on gSOAP 2.8 (C), for comparison with wstest-server. This file is ours
 * (MIT OR Apache-2.0); the code gSOAP generates from wstest.wsdl (soapC.c, soapServer.c,
 * soapH.h, soapStub.h, TestServiceSoap.nsmap) carries gSOAP's licence and is made by setup.sh
 * in build/, never committed.
 *
 * Usage: wstest-gsoap PORT   (0 picks a free port; the listening line on stderr names it)
 *        wstest-gsoap-tls PORT KEYFILE   (the same built on gsoapssl, OpenSSL: TLS 1.2 and 1.3
 *        with KEYFILE, the private key and the certificate chain in one PEM, as gSOAP reads it;
 *        each connection's handshake in its own thread, soap_ssl_accept; no ALPN, HTTP/1.1)
 *
 * Server design as gSOAP's documentation advises for a multi-threaded stand-alone server: the
 * master socket accepts, and each connection is served by a thread of its own on a copy of the
 * context (soap_copy, soap_serve), with keep-alive on and unlimited (max_keep_alive = 0), so
 * that a connection carries every request of a run.
 *
 * Output is SOAP_IO_STORE (the message serialised once into memory, then sent with its
 * Content-Length): gSOAP's default buffered mode serialises a message twice, once to count its
 * length, and measured 4,100 GetOrder-100 a second where STORE measured 6,300 (EchoVoid 16,500
 * and 14,000; 2026-12-04, two rounds each). SOAP_XML_TREE: document/literal needs no id/ref
 * graph. No I/O timeouts, gSOAP's default: with them it polls before every recv and send.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "soapH.h"
#include "TestServiceSoap.nsmap"

/* The largest GetOrder our server generates (wstest's limit). */
#define MAX_MESSAGE_SIZE 100000

static void *serve(void *arg)
{
	struct soap *soap = (struct soap *)arg;
	pthread_detach(pthread_self());
#ifdef WITH_OPENSSL
	if (soap->ctx && soap_ssl_accept(soap) != SOAP_OK) {
		soap_destroy(soap);
		soap_end(soap);
		soap_free(soap);
		return NULL;
	}
#endif
	soap_serve(soap);
	soap_destroy(soap);
	soap_end(soap);
	soap_free(soap);
	return NULL;
}

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 8082;
	struct soap *soap = soap_new1(SOAP_IO_KEEPALIVE | SOAP_IO_STORE | SOAP_XML_TREE);
	struct sockaddr_in bound;
	socklen_t bound_len = sizeof bound;

	signal(SIGPIPE, SIG_IGN);
	soap->max_keep_alive = 0; /* 0: keep every connection open for as long as the client does */
	soap->bind_flags = SO_REUSEADDR;
	soap->accept_timeout = 0;
	const char *scheme = "http";
#ifdef WITH_OPENSSL
	if (argc > 2) {
		soap_ssl_init();
		if (soap_ssl_server_context(soap, SOAP_SSL_NO_AUTHENTICATION | SOAP_TLSv1_2 | SOAP_TLSv1_3,
					    argv[2], NULL, NULL, NULL, NULL, NULL, NULL) != SOAP_OK) {
			soap_print_fault(soap, stderr);
			return 1;
		}
		scheme = "https";
	}
#endif
	if (!soap_valid_socket(soap_bind(soap, "127.0.0.1", port, 1024))) {
		soap_print_fault(soap, stderr);
		return 1;
	}
	if (getsockname(soap->master, (struct sockaddr *)&bound, &bound_len) != 0) {
		perror("getsockname");
		return 1;
	}
	fprintf(stderr, "wstest-gsoap: listening on %s://127.0.0.1:%d/WSTest\n", scheme,
		ntohs(bound.sin_port));
	for (;;) {
		pthread_t thread;
		struct soap *connection;
		if (!soap_valid_socket(soap_accept(soap))) {
			soap_print_fault(soap, stderr);
			continue;
		}
		connection = soap_copy(soap);
		if (!connection || pthread_create(&thread, NULL, serve, connection) != 0) {
			soap_force_closesock(soap);
			if (connection)
				soap_free(connection);
		}
	}
}

int __ns1__EchoVoid(struct soap *soap, struct _ns1__EchoVoid *request,
		    struct _ns1__EchoVoidResponse *response)
{
	(void)soap;
	(void)request;
	(void)response;
	return SOAP_OK;
}

/* The echoes answer with what was read: gSOAP decoded the request into these structures, and
 * serializes the response from them. */
int __ns1__EchoStruct(struct soap *soap, struct _ns1__EchoStruct *request,
		      struct _ns1__EchoStructResponse *response)
{
	(void)soap;
	response->EchoStructResult = request->array;
	return SOAP_OK;
}

int __ns1__EchoList(struct soap *soap, struct _ns1__EchoList *request,
		    struct _ns1__EchoListResponse *response)
{
	(void)soap;
	response->EchoListResult = request->list;
	return SOAP_OK;
}

int __ns1__EchoSynthetic(struct soap *soap, struct _ns1__EchoSynthetic *request,
			 struct _ns1__EchoSyntheticResponse *response)
{
	(void)soap;
	response->EchoSyntheticResult = request->synth;
	return SOAP_OK;
}

/* A string of `prefix` and the customer id, in the request's memory arena. */
static char *with_id(struct soap *soap, const char *prefix, const char *id)
{
	size_t length = strlen(prefix) + strlen(id) + 1;
	char *text = (char *)soap_malloc(soap, length);
	if (text)
		snprintf(text, length, "%s%s", prefix, id);
	return text;
}

static struct ns1__Address *address(struct soap *soap, const char *const prefixes[6], const char *id)
{
	struct ns1__Address *address = soap_new_ns1__Address(soap, 1);
	if (!address)
		return NULL;
	address->FirstName = with_id(soap, prefixes[0], id);
	address->LastName = with_id(soap, prefixes[1], id);
	address->Address1 = with_id(soap, prefixes[2], id);
	address->Address2 = with_id(soap, prefixes[3], id);
	address->City = with_id(soap, prefixes[4], id);
	address->State = with_id(soap, prefixes[5], id);
	address->Zip = "12345";
	return address;
}

/* WSTest's OrderBL.getOrder, "Bil1" typo included, as wstest-server generates it. */
int __ns1__GetOrder(struct soap *soap, struct _ns1__GetOrder *request,
		    struct _ns1__GetOrderResponse *response)
{
	static const char *const billing[6] = {"Bill FirstName ", "Bil1 LastName ", "Bill StreetAddress ",
					       "Street Address Line 2 ", "City ", "State "};
	static const char *const shipping[6] = {"Ship FirstName ", "Ship LastName ", "Ship StreetAddress ",
						"Street Address Line 2 ", "City ", "State "};
	char id[16];
	struct timeval now;
	struct ns1__Order *order;
	struct ns1__Customer *customer;
	struct ns1__COfLineItem *items;
	char *description;
	int count = request->messageSize;

	if (count < 0 || count > MAX_MESSAGE_SIZE)
		return soap_sender_fault(soap, "GetOrder/messageSize must be between 0 and 100000", NULL);
	snprintf(id, sizeof id, "%d", request->customerId);
	gettimeofday(&now, NULL);
	now.tv_usec -= now.tv_usec % 1000; /* milliseconds, as ours */
	order = soap_new_ns1__Order(soap, 1);
	customer = soap_new_ns1__Customer(soap, 1);
	items = soap_new_ns1__COfLineItem(soap, 1);
	description = with_id(soap, "Test Product ", id);
	if (!order || !customer || !items || !description)
		return SOAP_EOM;
	order->OrderId = request->orderId;
	order->OrderStatus = 1;
	order->OrderDate = now;
	order->OrderTotalAmount = 50;
	order->Customer = customer;
	order->LineItems = items;
	customer->CustomerId = request->customerId;
	customer->ContactFirstName = with_id(soap, "FirstName ", id);
	customer->ContactLastName = with_id(soap, "LastName ", id);
	customer->ContactPhone = "425-882-8080";
	customer->LastActivityDate = now;
	customer->CreditCardNumber = "892374389740";
	customer->CreditCardExpirationDate = "12/12/2012";
	customer->BillingAddress = address(soap, billing, id);
	customer->ShippingAddress = address(soap, shipping, id);
	items->__sizeLineItem = count;
	items->LineItem = count ? soap_new_ns1__LineItem(soap, count) : NULL;
	if (count && !items->LineItem)
		return SOAP_EOM;
	for (int i = 0; i < count; i++) {
		struct ns1__LineItem *item = &items->LineItem[i];
		item->OrderId = request->orderId;
		item->ItemId = i + 1;
		item->ProductId = i + 1;
		item->ProductDescription = description;
		item->OrderQuantity = 1;
		item->UnitPrice = 5;
	}
	response->GetOrderResult = order;
	return SOAP_OK;
}
