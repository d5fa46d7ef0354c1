// The WSTest data types of wstest.wsdl as plain classes, bound to XML by JiBX (binding.xml).
// setup.sh compiles this file for Java 8 and sets its class-file version to 50 so that JiBX's
// binding compiler adds its marshalling methods to these classes (see classfile50.py), which is
// why nothing here uses a feature newer than Java 6 can express in a class file.
package wstest;

import java.util.ArrayList;
import java.util.Date;

/** A TestStruct; f and s may be nil (null). */
class TestStruct {
    int i;
    Float f;
    String s;
}

/** A node of EchoList's linked list. */
class TestNode extends TestStruct {
    TestNode next;
}

class EchoVoid {
}

class EchoVoidResponse {
}

class EchoStruct {
    ArrayList items;
}

class EchoStructResponse {
    ArrayList items;
}

class EchoList {
    TestNode list;
}

class EchoListResponse {
    TestNode result;
}

class Synthetic {
    String strng;
    TestStruct strct;
    byte[] barray;
}

class EchoSynthetic {
    Synthetic synth;
}

class EchoSyntheticResponse {
    Synthetic result;
}

class GetOrder {
    int orderId;
    int customerId;
    int messageSize;
}

class GetOrderResponse {
    Order result;
}

class Order {
    int orderId;
    int orderStatus;
    Date orderDate;
    float orderTotalAmount;
    Customer customer;
    ArrayList lineItems;
}

class Customer {
    int customerId;
    String contactFirstName;
    String contactLastName;
    String contactPhone;
    Date lastActivityDate;
    String creditCardNumber;
    String creditCardExpirationDate;
    Address billingAddress;
    Address shippingAddress;
}

class Address {
    String firstName;
    String lastName;
    String address1;
    String address2;
    String city;
    String state;
    String zip;
}

class LineItem {
    int orderId;
    int itemId;
    int productId;
    String productDescription;
    int orderQuantity;
    float unitPrice;
}
