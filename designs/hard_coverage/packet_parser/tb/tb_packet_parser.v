`timescale 1ns/1ps
// Self-checking testbench for packet_parser: a stream of generated packets
// (good ones of every type and length, and ones with a bad sync, type, length
// or checksum, or a gap long enough to time out), with random idle cycles
// between and inside them, plus purely random bytes and asynchronous resets.
// A behavioural model of the parser checks every output each cycle.
module tb_packet_parser;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        in_valid;
    reg  [7:0] in_byte;
    wire       pkt_ok, pkt_err;
    wire [2:0] err_kind;
    wire [1:0] pkt_type;
    wire [4:0] pkt_len;

    packet_parser dut (.clk(clk), .rst_n(rst_n), .in_valid(in_valid), .in_byte(in_byte),
                       .pkt_ok(pkt_ok), .pkt_err(pkt_err), .err_kind(err_kind),
                       .pkt_type(pkt_type), .pkt_len(pkt_len));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    // model
    integer m_state, m_left, m_idle, m_len, m_type;
    reg [7:0] m_sum;
    reg       e_ok, e_err;
    reg [2:0] e_kind;
    reg [1:0] e_type;
    reg [4:0] e_len;
    integer   errors, n, k, i, oks, errs, gap;
    integer   cnt [0:5];

    task model_reset;
        begin
            m_state = 0; m_left = 0; m_idle = 0; m_sum = 0; m_len = 0; m_type = 0;
            e_ok = 0; e_err = 0; e_kind = 0; e_type = 0; e_len = 0;
        end
    endtask

    task check;
        begin
            if (pkt_ok !== e_ok || pkt_err !== e_err || err_kind !== e_kind || pkt_type !== e_type ||
                pkt_len !== e_len) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: ok=%b err=%b kind=%0d type=%0d len=%0d; expected %b %b %0d %0d %0d",
                             $time, pkt_ok, pkt_err, err_kind, pkt_type, pkt_len, e_ok, e_err, e_kind, e_type, e_len);
            end
        end
    endtask

    task model_fail;
        input [2:0] kind;
        begin e_err = 1; e_kind = kind; m_state = 0; end
    endtask

    // one cycle with (v, b) on the inputs
    task step;
        input v; input [7:0] b;
        begin
            @(negedge clk);
            check;
            in_valid = v; in_byte = b;
            @(posedge clk);
            e_ok = 0; e_err = 0; e_kind = 0;
            if (!v) begin
                if (m_state != 0) begin
                    if (m_idle == 7) begin model_fail(5); m_idle = 0; end
                    else m_idle = m_idle + 1;
                end
            end else begin
                m_idle = 0;
                case (m_state)
                    0: if (b == 8'hA5) m_state = 1; else model_fail(1);
                    1: if (b == 1 || b == 2 || b == 4 || b == 8) begin
                           m_type = (b == 1) ? 0 : (b == 2) ? 1 : (b == 4) ? 2 : 3;
                           m_sum = b; m_state = 2;
                       end else model_fail(2);
                    2: if (b >= 1 && b <= 16) begin
                           m_len = b; m_left = b; m_sum = m_sum + b; m_state = 3;
                       end else model_fail(3);
                    3: begin
                           m_sum = m_sum + b; m_left = m_left - 1;
                           if (m_left == 0) m_state = 4;
                       end
                    default:
                       if (b == m_sum) begin
                           e_ok = 1; e_type = m_type; e_len = m_len; m_state = 0;
                       end else model_fail(4);
                endcase
            end
            if (e_ok) oks = oks + 1;
            if (e_err) cnt[e_kind] = cnt[e_kind] + 1;
        end
    endtask

    // a byte, preceded by random idle cycles (fewer than the timeout, or `gap` of them)
    task send;
        input [7:0] b;
        begin
            for (i = 0; i < gap; i = i + 1) step(0, urand(0));
            step(1, b);
        end
    endtask

    // a packet: fault 0 good, 1 bad sync, 2 bad type, 3 bad length, 4 bad checksum, 5 timeout
    task packet;
        input integer fault; input integer ptype; input integer plen;
        reg [7:0] sum, tb, lb;
        integer j;
        begin
            gap = 0;
            send(fault == 1 ? 8'h5A : 8'hA5);
            if (fault != 1) begin
                tb = (fault == 2) ? 8'h03 : (8'd1 << ptype);
                gap = urand(0) % 3; send(tb);
                if (fault != 2) begin
                    lb = (fault == 3) ? ((urand(0) % 2) ? 8'd0 : 8'd17 + urand(0) % 200) : plen;
                    gap = urand(0) % 3; send(lb);
                    if (fault != 3) begin
                        sum = tb + lb;
                        for (j = 0; j < plen; j = j + 1) begin
                            k = urand(0);
                            gap = (fault == 5 && j == plen - 1) ? 8 : urand(0) % 4;
                            send(k[7:0]); sum = sum + k[7:0];
                        end
                        if (fault == 5) begin
                            gap = 0;
                        end else begin
                            gap = urand(0) % 7;
                            send(fault == 4 ? sum ^ 8'h10 : sum);
                        end
                    end
                end
            end
            step(0, 0);
        end
    endtask

    initial begin
        errors = 0; oks = 0; gap = 0;
        for (i = 0; i < 6; i = i + 1) cnt[i] = 0;
        seed = 32'hA5A5_0F0F;
        in_valid = 0; in_byte = 0;
        rst_n = 0; model_reset;
        #12 rst_n = 1;
        for (n = 0; n < 4; n = n + 1) packet(0, n, 1);
        for (n = 0; n < 4; n = n + 1) packet(0, n, 16);
        for (n = 1; n <= 5; n = n + 1) packet(n, 0, 4);
        for (n = 0; n < 300; n = n + 1)
            packet((urand(0) % 3) ? 0 : 1 + urand(0) % 5, urand(0) % 4, 1 + urand(0) % 16);
        for (n = 0; n < 500; n = n + 1) step(urand(0) % 2, (urand(0) % 8) ? urand(0) : 8'hA5);
        @(negedge clk); in_valid = 0; #2 rst_n = 0; #1 model_reset; check; #1 rst_n = 1;
        for (n = 0; n < 5; n = n + 1) packet(0, n % 4, 2 + n);
        @(negedge clk); check;
        if (oks < 100 || cnt[1] == 0 || cnt[2] == 0 || cnt[3] == 0 || cnt[4] == 0 || cnt[5] == 0) begin
            $display("coverage: %0d good packets, errors %0d %0d %0d %0d %0d", oks, cnt[1], cnt[2], cnt[3], cnt[4], cnt[5]);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
