// Text forms JiBX's defaults give differently from wstest-server: a nillable float (JiBX has no
// format for java.lang.Float) and a dateTime always to the millisecond (JiBX drops ".000", which
// changes a response's length from one request to the next).
package wstest;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Date;

import org.jibx.runtime.JiBXException;
import org.jibx.runtime.Utility;

final class Formats {
    private Formats() {
    }

    private static final DateTimeFormatter DATE_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    static String floatText(Float value) {
        if (value.isNaN()) {
            return "NaN";
        }
        return Utility.serializeFloat(value.floatValue());
    }

    static Float parseFloat(String text) throws JiBXException {
        return Float.valueOf(Utility.parseFloat(text));
    }

    static String dateTime(Date date) {
        return DATE_TIME.format(date.toInstant());
    }

    static Date parseDateTime(String text) throws JiBXException {
        return Utility.deserializeDateTime(text);
    }
}
