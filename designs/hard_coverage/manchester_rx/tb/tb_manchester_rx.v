`timescale 1ns/1ps
// Self-checking testbench for manchester_rx. A line model sends Manchester frames (half
// bits of 4 cycles: preamble of alternating bits, the 1 1 delimiter, bytes LSB first) and
// a monitor checks every received byte against the bytes sent, each frame's outcome and
// length, the violation kinds and the carrier. The directed part reaches every functional
// bin of coverage.yaml (with +vectors it prints its input rows, the rows of golden.json);
// then 40 random good frames with random preamble lengths and gaps.
module tb_manchester_rx;
    reg        clk = 1'b0;
    reg        rst;
    reg        din;
    wire       rx_valid, sync, frame_ok, frame_err, viol, carrier, carrier_lost, in_frame;
    wire [7:0] rx_byte;
    wire [3:0] frame_len, byte_cnt;
    wire [1:0] err_code, viol_kind, loss_cnt, dst;
    wire [3:0] pre_cnt;
    wire [8:0] run;

    manchester_rx dut (.clk(clk), .rst(rst), .din(din), .rx_valid(rx_valid), .rx_byte(rx_byte), .sync(sync),
                       .frame_ok(frame_ok), .frame_len(frame_len), .frame_err(frame_err), .err_code(err_code),
                       .viol(viol), .viol_kind(viol_kind), .carrier(carrier), .carrier_lost(carrier_lost),
                       .loss_cnt(loss_cnt), .dst(dst), .pre_cnt(pre_cnt), .byte_cnt(byte_cnt), .run(run),
                       .in_frame(in_frame));

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

    integer errors, dump, i, k, n, len;
    integer n_rx, n_sync, n_ok, n_lost, n_viol, last_len;
    integer n_err [0:3];
    integer n_kind [0:3];
    integer e_rx, e_sync, e_ok, e_lost, e_viol;
    integer e_err [0:3];
    reg [7:0] sent [0:1023];
    reg [7:0] b;

    // monitor: counts the pulses and checks each byte against the bytes sent
    always @(posedge clk) begin
        if (!rst) begin
            if (rx_valid) begin
                if (rx_byte !== sent[n_rx]) begin
                    errors = errors + 1;
                    $display("MISMATCH t=%0t: byte %0d is %h, sent %h", $time, n_rx, rx_byte, sent[n_rx]);
                end
                n_rx = n_rx + 1;
            end
            if (sync) n_sync = n_sync + 1;
            if (frame_ok) begin n_ok = n_ok + 1; last_len = frame_len; end
            if (frame_err) n_err[err_code] = n_err[err_code] + 1;
            if (viol) begin n_viol = n_viol + 1; n_kind[viol_kind] = n_kind[viol_kind] + 1; end
            if (carrier_lost) n_lost = n_lost + 1;
        end
    end

    task cyc;
        input v;
        begin
            @(negedge clk);
            din = v;
            if (dump) $display("VEC {\"din\": %0d}", v);
            @(posedge clk);
        end
    endtask

    task hold;
        input v; input integer cycles;
        integer j;
        begin
            for (j = 0; j < cycles; j = j + 1) cyc(v);
        end
    endtask

    task mbit;
        input v;
        begin
            hold(!v, 4);
            hold(v, 4);
        end
    endtask

    task preamble;  // n alternating bits, 1 first, then the delimiter 1 1
        input integer nbits;
        integer j;
        begin
            for (j = 0; j < nbits; j = j + 1) mbit(j % 2 == 0);
            mbit(1'b1);
            mbit(1'b1);
        end
    endtask

    task send_byte;
        input [7:0] v;
        integer j;
        begin
            for (j = 0; j < 8; j = j + 1) mbit(v[j]);
        end
    endtask

    task expect_counts;
        input [8*24-1:0] what;
        begin
            if (n_rx != e_rx || n_sync != e_sync || n_ok != e_ok || n_lost != e_lost || n_err[1] != e_err[1] ||
                n_err[2] != e_err[2] || n_err[3] != e_err[3] || n_err[0] != 0) begin
                errors = errors + 1;
                $display("MISMATCH t=%0t after %0s: rx %0d/%0d sync %0d/%0d ok %0d/%0d lost %0d/%0d err %0d %0d %0d/%0d %0d %0d",
                         $time, what, n_rx, e_rx, n_sync, e_sync, n_ok, e_ok, n_lost, e_lost, n_err[1], n_err[2],
                         n_err[3], e_err[1], e_err[2], e_err[3]);
            end
        end
    endtask

    task expect_len;
        input integer l;
        begin
            if (last_len != l) begin
                errors = errors + 1;
                $display("MISMATCH t=%0t: frame length %0d, expected %0d", $time, last_len, l);
            end
        end
    endtask

    task frame;  // a good frame of nb bytes (kept in sent[]), then a gap of q cycles
        input integer nb; input integer q; input [7:0] first;
        integer j;
        begin
            preamble(14);
            for (j = 0; j < nb; j = j + 1) begin
                b = (j == 0) ? first : (first ^ (8'h3B * j)) + j;
                if (j < 10) begin sent[e_rx] = b; e_rx = e_rx + 1; end
                send_byte(b);
            end
            hold(din, q);
            e_sync = e_sync + 1;
            if (nb == 0)       e_err[2] = e_err[2] + 1;
            else if (nb > 10)  e_err[3] = e_err[3] + 1;
            else               e_ok = e_ok + 1;
        end
    endtask

    initial begin
        errors = 0; dump = $test$plusargs("vectors");
        n_rx = 0; n_sync = 0; n_ok = 0; n_lost = 0; n_viol = 0; last_len = 0;
        e_rx = 0; e_sync = 0; e_ok = 0; e_lost = 0; e_viol = 0;
        for (i = 0; i < 4; i = i + 1) begin n_err[i] = 0; n_kind[i] = 0; e_err[i] = 0; end
        seed = 32'h4D41_4E43;
        din = 1'b0; rst = 1'b1;
        repeat (3) @(posedge clk);
        @(negedge clk); rst = 1'b0;
        // directed part (golden.json)
        hold(1'b0, 4);
        sent[0] = 8'h00; sent[1] = 8'hFF; sent[2] = 8'h5A;
        preamble(18); send_byte(8'h00); send_byte(8'hFF); send_byte(8'h5A); hold(din, 24);
        e_rx = 3; e_sync = 1; e_ok = 1;
        expect_counts("three bytes"); expect_len(3);
        if (!carrier) begin errors = errors + 1; $display("MISMATCH: no carrier after a frame"); end
        frame(1, 310, 8'hA5);                  // one byte, then the carrier is lost
        e_lost = 1;
        expect_counts("carrier loss"); expect_len(1);
        frame(10, 24, 8'h01);                  // the longest good frame, carrier back
        expect_counts("ten bytes"); expect_len(10);
        frame(11, 24, 8'h80);                  // one byte too many
        expect_counts("oversize");
        frame(0, 24, 8'h00);                   // delimiter, then nothing: runt
        expect_counts("empty frame");
        preamble(14); sent[e_rx] = 8'hC3; e_rx = e_rx + 1; send_byte(8'hC3);
        mbit(1'b1); mbit(1'b0); mbit(1'b1); hold(din, 24);
        e_sync = e_sync + 1; e_err[2] = e_err[2] + 1;
        expect_counts("dribble bits");
        preamble(14); sent[e_rx] = 8'h3C; e_rx = e_rx + 1; send_byte(8'h3C);
        hold(din, 2); hold(!din, 24);          // the next edge 6 cycles after the mid-bit one: violation
        e_sync = e_sync + 1; e_err[1] = e_err[1] + 1;
        expect_counts("violation in a frame");
        // violation kinds, each after locking on three alternating bits
        mbit(1'b1); mbit(1'b0); mbit(1'b1); hold(1'b0, 1); hold(1'b1, 24);      // glitch after a boundary
        mbit(1'b1); mbit(1'b0); mbit(1'b1); hold(1'b0, 8); hold(1'b1, 24);      // long after a boundary
        mbit(1'b1); mbit(1'b0); mbit(1'b1); hold(1'b1, 8); hold(1'b0, 24);      // too long
        preamble(4); hold(din, 24);            // delimiter after a short preamble: ignored
        if (n_kind[0] != 1 || n_kind[1] != 1 || n_kind[2] != 1 || n_kind[3] != 1) begin
            errors = errors + 1;
            $display("MISMATCH: violation kinds %0d %0d %0d %0d", n_kind[0], n_kind[1], n_kind[2], n_kind[3]);
        end
        expect_counts("violations");
        frame(2, 320, 8'h77);                  // carrier lost again
        e_lost = 2;
        expect_counts("second loss");
        if (loss_cnt != 2'd2) begin errors = errors + 1; $display("MISMATCH: loss_cnt %0d", loss_cnt); end
        dump = 0;
        // random good frames
        for (n = 0; n < 40; n = n + 1) begin
            len = 1 + urand(0) % 10;
            k = 12 + 2 * (urand(0) % 6);
            preamble(k);
            for (i = 0; i < len; i = i + 1) begin
                b = urand(0);
                sent[e_rx] = b; e_rx = e_rx + 1;
                send_byte(b);
            end
            hold(din, 16 + urand(0) % 40);
            e_sync = e_sync + 1; e_ok = e_ok + 1;
            expect_counts("random frame"); expect_len(len);
        end
        if (errors == 0) $display("TEST PASSED (%0d bytes, %0d frames, %0d violations)", n_rx, n_ok, n_viol);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
