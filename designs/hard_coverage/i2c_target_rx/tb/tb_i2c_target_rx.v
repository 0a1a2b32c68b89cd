`timescale 1ns/1ps
// Self-checking testbench for i2c_target_rx. An I2C master (bit phases of Q clock cycles)
// drives scl and a wired-AND sda (the master's level AND NOT sda_oe). It checks the ACK
// and NACK of each address and data byte, every byte written (wr_valid, wr_data), the
// bytes read back, wr_cnt, busy and the bus_abort pulses. The directed part reaches every
// functional bin of coverage.yaml: writes of two and of four bytes plus a refused fifth,
// an address of another target, a write then a repeated START and a read of two bytes
// (master ACK, then NACK), a STOP and a repeated START in the middle of an address, a
// data and a read byte. Then 150 random well-formed transactions, half to our address.
module tb_i2c_target_rx;
    localparam Q = 3;
    localparam [6:0] ADDR = 7'h3B;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        scl, sda_m;
    wire       sda_oe, wr_valid, bus_abort, busy;
    wire [7:0] wr_data;
    wire [2:0] wr_cnt;
    wire       sda = sda_m & ~sda_oe;

    i2c_target_rx dut (.clk(clk), .rst_n(rst_n), .scl(scl), .sda(sda), .sda_oe(sda_oe),
                       .wr_valid(wr_valid), .wr_data(wr_data), .wr_cnt(wr_cnt),
                       .bus_abort(bus_abort), .busy(busy));

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

    integer errors, n, k, j, n_abort, n_wr, exp_abort, exp_wr, m_cnt, len;
    reg [7:0] m_last, exp_byte, b;
    reg       ack, matched;

    // monitor: every written byte is the one the master sent
    always @(posedge clk) begin
        if (wr_valid) begin
            n_wr = n_wr + 1;
            if (wr_data !== exp_byte) begin
                errors = errors + 1;
                $display("MISMATCH t=%0t: wrote %h, expected %h", $time, wr_data, exp_byte);
            end
        end
        if (bus_abort) n_abort = n_abort + 1;
    end

    task fail;
        input [8*40-1:0] what;
        begin
            errors = errors + 1;
            if (errors <= 10) $display("MISMATCH t=%0t: %0s", $time, what);
        end
    endtask

    task drive;
        input s; input d; input integer c;
        integer i;
        begin
            for (i = 0; i < c; i = i + 1) begin
                @(negedge clk);
                scl = s; sda_m = d;
            end
        end
    endtask

    task bit_out;
        input d;
        begin
            drive(0, sda_m, 1); drive(0, d, Q); drive(1, d, Q);
        end
    endtask

    task bit_in;
        output d;
        begin
            drive(0, sda_m, 1); drive(0, 1, Q); drive(1, 1, 1);
            d = sda;
            drive(1, 1, Q - 1);
        end
    endtask

    task start;
        begin
            drive(0, sda_m, 1); drive(0, 1, Q); drive(1, 1, Q); drive(1, 0, Q);
        end
    endtask

    task stop;
        begin
            drive(0, sda_m, 1); drive(0, 0, Q); drive(1, 0, Q); drive(1, 1, Q + 2);
            if (busy !== 1'b0) fail("busy after STOP");
        end
    endtask

    // send a byte, return the target's ACK (1) or NACK (0)
    task send;
        input [7:0] v; output a;
        integer i;
        reg d;
        begin
            exp_byte = v;
            for (i = 7; i >= 0; i = i - 1) bit_out(v[i]);
            bit_in(d);
            a = !d;
        end
    endtask

    task send_bits;
        input [7:0] v; input integer c;
        integer i;
        begin
            for (i = 0; i < c; i = i + 1) bit_out(v[7 - i]);
        end
    endtask

    task receive;
        output [7:0] v; input master_ack;
        integer i;
        reg d;
        begin
            for (i = 7; i >= 0; i = i - 1) begin bit_in(d); v[i] = d; end
            bit_out(!master_ack);
        end
    endtask

    task receive_bits;
        input integer c;
        integer i;
        reg d;
        begin
            for (i = 0; i < c; i = i + 1) bit_in(d);
        end
    endtask

    // address byte with its expected answer
    task address;
        input [6:0] a; input r;
        begin
            send({a, r}, ack);
            if (ack !== (a == ADDR)) fail("address ACK");
            if (a == ADDR) begin
                m_cnt = 0;
                if (busy !== 1'b1) fail("busy after our address");
            end
        end
    endtask

    task write_byte;
        input [7:0] v;
        begin
            send(v, ack);
            if (ack !== (m_cnt < 4)) fail("data ACK");
            if (m_cnt < 4) begin
                m_cnt = m_cnt + 1; m_last = v; exp_wr = exp_wr + 1;
            end
            if (wr_cnt !== m_cnt) fail("wr_cnt");
        end
    endtask

    task read_byte;
        input master_ack;
        begin
            receive(b, master_ack);
            if (b !== m_last) fail("read data");
        end
    endtask

    initial begin
        errors = 0; n_abort = 0; n_wr = 0; exp_abort = 0; exp_wr = 0; m_cnt = 0; m_last = 0;
        seed = 32'h12C3_B0A7;
        scl = 1; sda_m = 1; exp_byte = 0;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        drive(1, 1, 4);
        // two bytes written, STOP
        drive(1, 0, Q); address(ADDR, 0); write_byte(8'hA5); write_byte(8'h3C); stop;
        // another target's address: NACKed and ignored
        start; address(7'h12, 0); send(8'hFF, ack); if (ack) fail("ignored byte ACKed"); stop;
        // four bytes, the fifth refused
        start; address(ADDR, 0);
        write_byte(8'h11); write_byte(8'h22); write_byte(8'h33); write_byte(8'h44); write_byte(8'h55); stop;
        // write, repeated START, read two bytes (ACK, NACK)
        start; address(ADDR, 0); write_byte(8'h96);
        start; address(ADDR, 1); read_byte(1); read_byte(0); stop;
        // STOP and repeated START in the middle of an address byte
        start; send_bits({ADDR, 1'b0}, 4); stop; exp_abort = exp_abort + 1;
        start; send_bits({ADDR, 1'b0}, 3); exp_abort = exp_abort + 1;
        // ... of a data byte
        start; address(ADDR, 0); send_bits(8'h5A, 5); stop; exp_abort = exp_abort + 1;
        start; address(ADDR, 0); write_byte(8'hFF); send_bits(8'h00, 3); exp_abort = exp_abort + 1;
        // ... of a read byte (FF: the target leaves sda to the master)
        start; address(ADDR, 1); receive_bits(4); stop; exp_abort = exp_abort + 1;
        start; address(ADDR, 1); receive_bits(5); exp_abort = exp_abort + 1;
        start; address(ADDR, 1); read_byte(0); stop;
        if (n_abort !== exp_abort) fail("bus_abort count");
        if (wr_cnt !== 3'd0) fail("wr_cnt after read");
        // random well-formed transactions
        for (n = 0; n < 150; n = n + 1) begin
            matched = urand(0) % 2;
            start;
            k = urand(0) % 3;
            if (k == 0 || !matched) begin                  // write 0..6 bytes
                address(matched ? ADDR : 7'h3B ^ (1 + urand(0) % 127), 0);
                len = urand(0) % 7;
                for (j = 0; j < len; j = j + 1) begin
                    if (matched) write_byte(urand(0));
                    else begin send(urand(0), ack); if (ack) fail("ignored byte ACKed"); end
                end
            end else if (k == 1) begin                     // read 1..3 bytes
                address(ADDR, 1);
                len = 1 + urand(0) % 3;
                for (j = 0; j < len; j = j + 1) read_byte(j != len - 1);
            end else begin                                 // write 1..2, repeated START, read 1..2
                address(ADDR, 0);
                len = 1 + urand(0) % 2;
                for (j = 0; j < len; j = j + 1) write_byte(urand(0));
                start; address(ADDR, 1);
                len = 1 + urand(0) % 2;
                for (j = 0; j < len; j = j + 1) read_byte(j != len - 1);
            end
            stop;
            drive(1, 1, urand(0) % 6);
        end
        if (n_abort !== exp_abort) fail("bus_abort count");
        if (n_wr !== exp_wr) fail("bytes written");
        if (errors == 0) $display("TEST PASSED (%0d bytes written, %0d aborts)", n_wr, n_abort);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
