// The WSTest service on WCF as Mono ships it (System.ServiceModel 4.0): a self-hosted
// ServiceHost with BasicHttpBinding (SOAP 1.1 over HTTP, no WS-Addressing), the configuration
// of the WCF runs of WSTest. The contract is written by hand from wstest/wstest.wsdl with
// [XmlSerializerFormat], document/literal with wrapped parameters, so the messages are the
// WSDL's to the element (DataContractSerializer would put every field in a
// schemas.datacontract.org namespace). Answers as wstest-server does: the same namespaces,
// shapes and GetOrder generator ("Bil1" typo included).
//
// Usage: mono WSTestWcf.exe PORT (0 picks a free port; the listening line on stderr names it).
using System;
using System.Net;
using System.Net.Sockets;
using System.ServiceModel;
using System.ServiceModel.Channels;
using System.ServiceModel.Description;
using System.Threading;
using System.Xml;
using System.Xml.Serialization;

namespace WSTest
{
    [XmlType(Namespace = Names.Service)]
    public class TestStruct
    {
        public int i;
        [XmlElement(IsNullable = true)] public float? f;
        [XmlElement(IsNullable = true)] public string s;
    }

    // The WSDL's COfTestStruct, as a type: Mono's WCF does not apply [XmlArrayItem] to an
    // operation's parameters, so a TestStruct[] parameter would read no items.
    [XmlType(Namespace = Names.Service)]
    public class COfTestStruct
    {
        [XmlElement("l")] public TestStruct[] l;
    }

    [XmlType(Namespace = Names.Service)]
    public class TestNode : TestStruct
    {
        public TestNode Next;
    }

    [XmlType(Namespace = Names.Service)]
    public class Synthetic
    {
        public string Strng;
        public TestStruct Strct;
        [XmlElement(DataType = "base64Binary")] public byte[] Barray;
    }

    [XmlType(Namespace = Names.Service)]
    public class LineItem
    {
        public int OrderId;
        public int ItemId;
        public int ProductId;
        public string ProductDescription;
        public int OrderQuantity;
        public float UnitPrice;
    }

    [XmlType(Namespace = Names.Service)]
    public class Address
    {
        public string FirstName;
        public string LastName;
        public string Address1;
        public string Address2;
        public string City;
        public string State;
        public string Zip;
    }

    // The dateTime fields are strings formatted to the millisecond, as in mono-asmx:
    // XmlSerializer writes a DateTime with as many fraction digits as it has (trailing zeros
    // dropped), so the response's length would change from one request to the next.
    [XmlType(Namespace = Names.Service)]
    public class Customer
    {
        public int CustomerId;
        public string ContactFirstName;
        public string ContactLastName;
        public string ContactPhone;
        public string LastActivityDate;
        public string CreditCardNumber;
        public string CreditCardExpirationDate;
        public Address BillingAddress;
        public Address ShippingAddress;
    }

    [XmlType(Namespace = Names.Service)]
    public class Order
    {
        public int OrderId;
        public int OrderStatus;
        public string OrderDate;
        public float OrderTotalAmount;
        public Customer Customer;
        public LineItem[] LineItems;
    }

    public static class Names
    {
        public const string Service = "uri:WSTestWeb-TestService";
    }

    [ServiceContract(Namespace = Names.Service, Name = "TestServiceSoap")]
    [XmlSerializerFormat(Style = OperationFormatStyle.Document, Use = OperationFormatUse.Literal)]
    public interface ITestService
    {
        [XmlSerializerFormat(Style = OperationFormatStyle.Document, Use = OperationFormatUse.Literal)]
        [OperationContract(Action = Names.Service + "/EchoVoid")]
        void EchoVoid();

        [XmlSerializerFormat(Style = OperationFormatStyle.Document, Use = OperationFormatUse.Literal)]
        [OperationContract(Action = Names.Service + "/EchoStruct")]
        COfTestStruct EchoStruct(COfTestStruct array);

        [XmlSerializerFormat(Style = OperationFormatStyle.Document, Use = OperationFormatUse.Literal)]
        [OperationContract(Action = Names.Service + "/EchoList")]
        TestNode EchoList(TestNode list);

        [XmlSerializerFormat(Style = OperationFormatStyle.Document, Use = OperationFormatUse.Literal)]
        [OperationContract(Action = Names.Service + "/EchoSynthetic")]
        Synthetic EchoSynthetic(Synthetic synth);

        [XmlSerializerFormat(Style = OperationFormatStyle.Document, Use = OperationFormatUse.Literal)]
        [OperationContract(Action = Names.Service + "/GetOrder")]
        Order GetOrder(int orderId, int customerId, int messageSize);
    }

    // One instance serves every call, concurrently: nothing in it is mutable.
    [ServiceBehavior(InstanceContextMode = InstanceContextMode.Single,
        ConcurrencyMode = ConcurrencyMode.Multiple, IncludeExceptionDetailInFaults = false)]
    public sealed class TestService : ITestService
    {
        public void EchoVoid()
        {
        }

        public COfTestStruct EchoStruct(COfTestStruct array)
        {
            return array;
        }

        public TestNode EchoList(TestNode list)
        {
            return list;
        }

        public Synthetic EchoSynthetic(Synthetic synth)
        {
            return synth;
        }

        public Order GetOrder(int orderId, int customerId, int messageSize)
        {
            if (messageSize < 0 || messageSize > 100000)
            {
                throw new FaultException("GetOrder/messageSize is " + messageSize
                    + ": it must be between 0 and 100000");
            }
            string now = DateTime.UtcNow.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'");
            string id = customerId.ToString();
            var order = new Order
            {
                OrderId = orderId,
                OrderStatus = 1,
                OrderDate = now,
                OrderTotalAmount = 50.0f,
                Customer = new Customer
                {
                    CustomerId = customerId,
                    ContactFirstName = "FirstName " + id,
                    ContactLastName = "LastName " + id,
                    ContactPhone = "425-882-8080",
                    LastActivityDate = now,
                    CreditCardNumber = "892374389740",
                    CreditCardExpirationDate = "12/12/2012",
                    BillingAddress = MakeAddress("Bill FirstName ", "Bil1 LastName ", "Bill StreetAddress ", id),
                    ShippingAddress = MakeAddress("Ship FirstName ", "Ship LastName ", "Ship StreetAddress ", id),
                },
                LineItems = new LineItem[messageSize],
            };
            string description = "Test Product " + id;
            for (int item = 1; item <= messageSize; item++)
            {
                order.LineItems[item - 1] = new LineItem
                {
                    OrderId = orderId,
                    ItemId = item,
                    ProductId = item,
                    ProductDescription = description,
                    OrderQuantity = 1,
                    UnitPrice = 5.0f,
                };
            }
            return order;
        }

        static Address MakeAddress(string first, string last, string street, string id)
        {
            return new Address
            {
                FirstName = first + id,
                LastName = last + id,
                Address1 = street + id,
                Address2 = "Street Address Line 2 " + id,
                City = "City " + id,
                State = "State " + id,
                Zip = "12345",
            };
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            int port = args.Length > 0 ? int.Parse(args[0]) : 8082;
            // `--metadata`: WCF's own ?wsdl (and ?xsd=xsdN) on the service's address, for
            // scripts/wcf-wsdl.sh; the benchmark runs without it.
            bool metadata = args.Length > 1 && args[1] == "--metadata";
            // WCF's BasicHttpBinding as the WSTest runs configured it: SOAP 1.1, buffered
            // transfer; quotas raised past the largest WSTest message (GetOrder-100000 is the
            // service's own answer; EchoStruct and EchoList requests stay under 100 KB).
            var binding = new BasicHttpBinding(BasicHttpSecurityMode.None)
            {
                MaxReceivedMessageSize = 4 * 1024 * 1024,
                MaxBufferSize = 4 * 1024 * 1024,
                TransferMode = TransferMode.Buffered,
            };
            binding.ReaderQuotas = XmlDictionaryReaderQuotas.Max;
            // HttpListener, under WCF's HTTP transport, cannot bind port 0: take a free port
            // from the kernel, then open the host on it, trying again should another process
            // take it in between.
            for (int attempt = 0; ; attempt++)
            {
                int chosen = port != 0 ? port : FreePort();
                var address = new Uri("http://127.0.0.1:" + chosen + "/TestService.svc");
                var host = new ServiceHost(typeof(TestService), address);
                host.AddServiceEndpoint(typeof(ITestService), binding, "");
                // Throttles raised so that every connection's call runs at once (WCF's defaults
                // queue calls past 16 a core).
                var throttle = host.Description.Behaviors.Find<ServiceThrottlingBehavior>();
                if (throttle == null)
                {
                    throttle = new ServiceThrottlingBehavior();
                    host.Description.Behaviors.Add(throttle);
                }
                throttle.MaxConcurrentCalls = 1000;
                throttle.MaxConcurrentSessions = 1000;
                throttle.MaxConcurrentInstances = 1000;
                if (metadata)
                {
                    host.Description.Behaviors.Add(new ServiceMetadataBehavior { HttpGetEnabled = true });
                }
                var debug = host.Description.Behaviors.Find<ServiceDebugBehavior>();
                if (debug != null)
                {
                    debug.HttpHelpPageEnabled = false;
                }
                try
                {
                    host.Open();
                }
                catch (Exception) when (port == 0 && attempt < 10)
                {
                    continue;
                }
                int workers, io;
                ThreadPool.GetMinThreads(out workers, out io);
                Console.Error.WriteLine("mono-wcf listening on " + address + " (WCF BasicHttpBinding, Mono "
                    + Environment.Version + ", " + workers + " worker threads at least)");
                Thread.Sleep(Timeout.Infinite);
                return 0;
            }
        }

        static int FreePort()
        {
            var probe = new TcpListener(IPAddress.Loopback, 0);
            probe.Start();
            int chosen = ((IPEndPoint)probe.LocalEndpoint).Port;
            probe.Stop();
            return chosen;
        }
    }
}
