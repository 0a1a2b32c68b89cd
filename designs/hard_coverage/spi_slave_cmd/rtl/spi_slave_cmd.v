// spi_slave_cmd: SPI-like (mode 0) command receiver. sclk and mosi are sampled with
// clk: a bit is taken, MSB first, at each clk edge where cs_n = 0 and sclk = 1 while
// sclk was 0 at the previous edge. A frame is 16 bits: a command byte {op, addr}
// then a data byte; frames may follow back to back while cs_n stays low. cs_n = 1
// abandons a partial frame (bit count back to 0, nothing executed).
// op: 0 NOP, 1 WRITE regs[addr] = data, 2 READ regs[addr] (its value is shifted out
// on miso during the data byte and loaded into rd_data at the frame's end), 3 CLEAR
// (every register and armed cleared). The eight registers sit at addresses 38-3F
// (hex); a WRITE or READ of any other address is refused and sets the sticky
// addr_err (a refused READ returns 0). Writing A5 to register 3C sets armed.
// Asynchronous active-low reset clears everything.
module spi_slave_cmd (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       cs_n,
    input  wire       sclk,
    input  wire       mosi,
    output wire       miso,
    output reg        cmd_done,    // pulse: a command byte was taken at this edge
    output reg        frame_done,  // pulse: a frame was executed at this edge
    output reg  [1:0] op,          // the last command byte's opcode
    output reg  [5:0] addr,        // and its address
    output wire       addr_hit,    // addr names a register (38-3F)
    output reg  [7:0] rd_data,
    output reg        addr_err,
    output reg        armed
);
    localparam [1:0] OP_NOP = 2'd0, OP_WRITE = 2'd1, OP_READ = 2'd2, OP_CLEAR = 2'd3;
    localparam [5:0] KEY_ADDR  = 6'h3C;
    localparam [7:0] KEY_VALUE = 8'hA5;

    reg       sclk_q;
    reg [3:0] bit_cnt;
    reg [6:0] shift;
    reg [7:0] tx;
    reg [7:0] regs [0:7];

    wire       rise    = !cs_n && sclk && !sclk_q;
    wire [7:0] byte_in = {shift, mosi};
    wire       hit_in  = (byte_in[5:3] == 3'b111);
    assign addr_hit = (addr[5:3] == 3'b111);
    assign miso     = tx[7];

    integer i;
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            sclk_q     <= 1'b0;
            bit_cnt    <= 4'd0;
            shift      <= 7'd0;
            tx         <= 8'd0;
            op         <= OP_NOP;
            addr       <= 6'd0;
            cmd_done   <= 1'b0;
            frame_done <= 1'b0;
            rd_data    <= 8'd0;
            addr_err   <= 1'b0;
            armed      <= 1'b0;
            for (i = 0; i < 8; i = i + 1)
                regs[i] <= 8'd0;
        end else begin
            sclk_q     <= sclk;
            cmd_done   <= 1'b0;
            frame_done <= 1'b0;
            if (cs_n) begin
                bit_cnt <= 4'd0;                  // frame abandoned (or idle)
                tx      <= 8'd0;
            end else if (rise) begin
                shift   <= byte_in[6:0];
                bit_cnt <= bit_cnt + 4'd1;        // wraps 15 -> 0 at a frame's end
                tx      <= {tx[6:0], 1'b0};
                if (bit_cnt == 4'd7) begin
                    op       <= byte_in[7:6];
                    addr     <= byte_in[5:0];
                    cmd_done <= 1'b1;
                    if (byte_in[7:6] == OP_READ && hit_in)
                        tx <= regs[byte_in[2:0]];
                end else if (bit_cnt == 4'd15) begin
                    frame_done <= 1'b1;
                    case (op)
                        OP_WRITE: begin
                            if (addr_hit) begin
                                regs[addr[2:0]] <= byte_in;
                                if (addr == KEY_ADDR && byte_in == KEY_VALUE)
                                    armed <= 1'b1;
                            end else
                                addr_err <= 1'b1;
                        end
                        OP_READ: begin
                            if (addr_hit)
                                rd_data <= regs[addr[2:0]];
                            else begin
                                rd_data  <= 8'd0;
                                addr_err <= 1'b1;
                            end
                        end
                        OP_CLEAR: begin
                            for (i = 0; i < 8; i = i + 1)
                                regs[i] <= 8'd0;
                            armed <= 1'b0;
                        end
                        default: ;                // NOP
                    endcase
                end
            end
        end
    end
endmodule
